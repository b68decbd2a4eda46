public import Foundation
public import InterPayStore

/// What the payment engine reports to watchers (`interpay watch`).
public enum EngineEvent: Sendable {
    /// A new request arrived from a peer (we are the payer).
    case requestReceived(PaymentRecord)
    /// A payment changed state or was confirmed.
    case paymentUpdated(PaymentRecord)
    /// A subscription series was offered to us, or changed state (either side).
    case seriesUpdated(SeriesRecord)
    /// A session came up.
    case peerUp(LinkSession)
    /// A session went down.
    case peerDown(LinkSession)
    /// The peer's ack of one of our frames was committed: the frame left the outbox.
    case delivered(paymentID: UUID, messageID: UUID)
    /// Pairing with a peer moved (PaymentEngine+Pairing).
    case pairing(PairingEvent)
}
