public import InterPayCore

/// Takes the payment frames of every session straight from its reader (`SessionManager.deliverPaymentFrames(to:)`).
public protocol PaymentFrameSink: Sendable {
    /// Takes a peer's frame; returns once there is room for the next. Until it returns, the session that read the
    /// frame reads no further one (its socket is not read, and the peer slows down).
    func take(_ message: PaymentMessage, from peer: PeerID) async
}
