import Foundation
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
    /// The peer's ack of one of our frames was committed: the frame left the outbox.
    case delivered(paymentID: UUID, messageID: UUID)
}
