import InterPayStore
import InterPayTransport

/// What the payment engine reports to watchers (`interpay watch`).
enum EngineEvent: Sendable {
    /// A new request arrived from a peer (we are the payer).
    case requestReceived(PaymentRecord)
    /// A payment changed state or was confirmed.
    case paymentUpdated(PaymentRecord)
    /// A session came up.
    case peerUp(SessionInfo)
    /// A session went down.
    case peerDown(SessionInfo)
}
