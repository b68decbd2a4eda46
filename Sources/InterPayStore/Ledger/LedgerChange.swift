public import Foundation

/// Everything one step of the protocol writes, committed in one transaction by `AppDatabase.apply(_:)`.
///
/// The daemon relies on two rules (PROTOCOL.md §9.1): a state change, its event and its outbound frame are
/// committed together before the frame is sent; an incoming frame's effects and the answer to it (`seenMessage`)
/// are committed together before the answer is sent. Either all of a change is stored or none of it.
public struct LedgerChange: Sendable, Hashable {
    /// A payment to insert, or to update when it exists. An update writes only `state`, `confirmed`, `reason`,
    /// `reasonCode` and `updatedAt`: the terms of a request never change.
    public var payment: PaymentRecord?
    /// Set when the step read `payment`'s ID and found no row: it is inserted as it is, which costs SQLite less than
    /// the upsert (whose conflict clause and update triggers run for every row). Should the row exist after all, the
    /// primary key refuses it and the step fails.
    public var paymentIsNew = false
    /// Events to append to the log, in order.
    public var events: [PaymentEventRecord]
    /// Frames to queue; they get increasing `seq` numbers in this order.
    public var outbox: [OutboxRecord]
    /// Message IDs of outbox frames to remove (acknowledged, or retransmission ended). Unknown IDs are ignored.
    public var removeFromOutbox: [UUID]
    /// An incoming frame processed by this change, with our answer.
    public var seenMessage: SeenMessageRecord?
    /// A peer to insert or refresh (name, address when given, last seen).
    public var peer: PeerRecord?
    /// The idempotency key of the `send` that creates `payment`; keys older than `SendKeyRecord.lifetime` are
    /// forgotten in the same transaction.
    public var sendKey: SendKeyRecord?
    /// A subscription series to insert, or to update when it exists (its state, cap, last period, reason and the
    /// frame waiting for the peer's ack; the terms never change).
    public var series: SeriesRecord?

    /// Builds a change; every part is optional.
    public init(
        payment: PaymentRecord? = nil, events: [PaymentEventRecord] = [], outbox: [OutboxRecord] = [],
        removeFromOutbox: [UUID] = [], seenMessage: SeenMessageRecord? = nil, peer: PeerRecord? = nil
    ) {
        self.payment = payment
        self.events = events
        self.outbox = outbox
        self.removeFromOutbox = removeFromOutbox
        self.seenMessage = seenMessage
        self.peer = peer
    }

    /// Whether the change writes nothing.
    public var isEmpty: Bool {
        payment == nil && events.isEmpty && outbox.isEmpty && removeFromOutbox.isEmpty && seenMessage == nil
            && peer == nil && sendKey == nil && series == nil
    }
}
