public import Foundation
public import GRDB
public import InterPayCore

/// One entry of the append-only event log (`paymentEvent`): a transition of a payment and what caused it.
///
/// The schema refuses every UPDATE and DELETE of this table, so the log is a faithful history of each payment.
public struct PaymentEventRecord: Sendable, Hashable, Codable {
    /// Assigned by SQLite when the event is stored (increasing in insertion order); nil before.
    public var id: Int64?
    /// The payment that changed.
    public var paymentID: UUID
    /// When it changed.
    public var at: Timestamp
    /// The state before, or nil when the payment was created by this event.
    public var fromState: PaymentState?
    /// The state after.
    public var toState: PaymentState
    /// What caused the transition.
    public var cause: Cause
    /// The frame that caused or announced the transition, if any.
    public var messageID: UUID?
    /// Free text for people reading the history (a reject reason, a reason code, a refusal…).
    public var detail: String?

    /// What caused a transition.
    public enum Cause: String, Sendable, Hashable, Codable, CaseIterable {
        /// A local user's command (accept, reject, cancel).
        case local
        /// A frame from the peer (accept, reject, cancel).
        case peer
        /// The payment expired on our clock.
        case expiry
        /// The peer's ack confirmed or corrected our state.
        case ack
        /// We created the payment (the payee's new request).
        case created
        /// We received the payment (the payer's incoming request).
        case received
    }

    /// Describes a new event; `id` is assigned when it is stored.
    public init(
        paymentID: UUID, at: Timestamp, from fromState: PaymentState?, to toState: PaymentState, cause: Cause,
        messageID: UUID? = nil, detail: String? = nil
    ) {
        self.id = nil
        self.paymentID = paymentID
        self.at = at
        self.fromState = fromState
        self.toState = toState
        self.cause = cause
        self.messageID = messageID
        self.detail = detail
    }
}

extension PaymentEventRecord: FetchableRecord, PersistableRecord, WireUUIDRecord {
    public static let databaseTableName = "paymentEvent"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        case id, paymentID, at, fromState, toState, cause, messageID, detail
    }
}
