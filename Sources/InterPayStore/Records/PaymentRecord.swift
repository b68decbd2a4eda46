public import Foundation
public import GRDB
public import InterPayCore

/// One payment as stored in the `payment` table: the request's terms, which never change, and this side's state.
///
/// Columns mirror `PaymentRequest` with the amount split into `amountMinor` and `currency`, plus the local side:
/// `role` (`payee`: we asked for the money, an outgoing request; `payer`: an incoming request), `peerID` (the other
/// side), `state`, `confirmed` and the reasons. `lifecycle` and `request` rebuild the core values.
public struct PaymentRecord: Sendable, Hashable, Codable {
    /// The payment ID, stored in lower-case text form.
    public var id: UUID
    /// This side's role in the payment.
    public var role: PaymentRole
    /// The other side: the payer when we are the payee, the payee when we are the payer.
    public var peerID: PeerID
    /// Who asked for the money.
    public var payeeID: PeerID
    /// Who is asked to pay.
    public var payerID: PeerID
    /// The amount in minor units of `currency` (always positive).
    public var amountMinor: Int64
    /// The ISO 4217 code of the amount, e.g. `"MXN"`.
    public var currency: String
    /// What it is for (may be empty).
    public var memo: String
    /// An optional label for statistics.
    public var category: String?
    /// This side's state of the payment.
    public var state: PaymentState
    /// Whether the state is the payee's word (always true for the payee; see `PaymentLifecycle.isConfirmed`).
    public var confirmed: Bool
    /// The payer's free-text reason for a rejection, if any.
    public var reason: String?
    /// Why our own action lost (`ALAC`, `ACLR`, `ARFR`, `AEXR`), when the peer reported one.
    public var reasonCode: ReasonCode?
    /// When the payee created the request.
    public var createdAt: Timestamp
    /// When the request expires if still pending.
    public var expiresAt: Timestamp
    /// When this row last changed.
    public var updatedAt: Timestamp
    /// The currency of the quote stored when the payment was accepted (this side's preferred currency), if any.
    public var quoteCurrency: String?
    /// The quoted amount in minor units of `quoteCurrency`.
    public var quoteMinor: Int64?
    /// The rate used (exact decimal text, from the payment's currency to `quoteCurrency`).
    public var quoteRate: String?
    /// When the rates used were published.
    public var quoteRatesAt: Timestamp?
    /// When this side recorded the acceptance (the payee: the payer's accept arrived; the payer: its own accept).
    public var acceptedAt: Timestamp?
    /// When this side recorded the payment as paid (the payer's mark, or its arrival at the payee).
    public var paidAt: Timestamp?
    /// When this side recorded the settlement.
    public var settledAt: Timestamp?
    /// How the payer said it paid, if it said.
    public var paidMethod: PaymentMethod?
    /// The payer's reference for the payment, if any.
    public var paidReference: String?
    /// The payee's signed receipt, as its canonical text (`SignedReceipt.text`), once there is one.
    public var receipt: String?
    /// The subscription series this payment is a period of (`SeriesRecord`), nil for a one-off request.
    public var seriesID: UUID?
    /// The period of `seriesID` (0 for the first).
    public var seriesIndex: Int?
    /// For a refund (PROTOCOL.md §8.7), the payment it gives money back of: the refund's payee is that payment's
    /// payer. Nil for every other payment.
    public var refundOf: UUID?
    /// The split bill this payment is a share of (PROTOCOL.md §8.8): one of this side's bills when it is the payee,
    /// the payee's bill (scoped to that payee) when it is the payer. Nil for every other payment.
    public var billID: UUID?
    /// The share's place among its bill's payers, in the order they were named (the payee's side only).
    public var billIndex: Int?
    /// How many payers the bill has.
    public var billPayers: Int?

    /// Builds the row for a new payment from its request and this side's role and state.
    ///
    /// The payee's state is always confirmed (its word is authoritative), whatever `confirmed` says.
    public init(request: PaymentRequest, role: PaymentRole, state: PaymentState, confirmed: Bool, now: Timestamp) {
        self.id = request.id
        self.role = role
        self.peerID = role == .payee ? request.payer : request.payee
        self.payeeID = request.payee
        self.payerID = request.payer
        self.amountMinor = request.amount.minorUnits
        self.currency = request.amount.currency.code
        self.memo = request.memo
        self.category = request.category
        self.state = state
        self.confirmed = role == .payee ? true : confirmed
        self.reason = nil
        self.reasonCode = nil
        self.createdAt = request.createdAt
        self.expiresAt = request.expiresAt
        self.updatedAt = now
        self.seriesID = request.series?.seriesID
        self.seriesIndex = request.series?.index
        self.billID = request.bill?.billID
        self.billPayers = request.bill?.payers
    }

    /// Builds the row for a new payment from its request and the lifecycle that started it.
    public init(request: PaymentRequest, lifecycle: PaymentLifecycle, now: Timestamp) {
        self.init(
            request: request, role: lifecycle.role, state: lifecycle.state, confirmed: lifecycle.isConfirmed, now: now)
    }

    /// The state machine of this payment, restored from the row.
    public var lifecycle: PaymentLifecycle {
        PaymentLifecycle(paymentID: id, role: role, expiresAt: expiresAt, state: state, isConfirmed: confirmed)
    }

    /// Copies a lifecycle's state and confirmation into the row and stamps `updatedAt`, and the time of the first
    /// acceptance, payment mark and settlement this side saw.
    public mutating func update(from lifecycle: PaymentLifecycle, now: Timestamp) {
        state = lifecycle.state
        confirmed = lifecycle.isConfirmed
        updatedAt = now
        if state.isAccepted, acceptedAt == nil { acceptedAt = now }
        if state == .paid, paidAt == nil { paidAt = now }
        if state == .settled, settledAt == nil { settledAt = now }
    }

    /// The amount as `Money`. Throws when the stored currency is not (or no longer) a known ISO 4217 code.
    public var amount: Money {
        get throws(StoreError) {
            do {
                return Money(minorUnits: amountMinor, currency: try CurrencyCode(currency))
            } catch {
                throw .corruptRecord(table: Self.databaseTableName, key: id.wireString, reason: error.description)
            }
        }
    }

    /// The request as the core models it, checked again by `PaymentRequest`'s rules.
    public var request: PaymentRequest {
        get throws(StoreError) {
            let amount = try amount
            do {
                return try PaymentRequest(
                    id: id, payee: payeeID, payer: payerID, amount: amount, memo: memo, category: category,
                    createdAt: createdAt, expiresAt: expiresAt,
                    series: seriesID.map { SeriesLink(seriesID: $0, index: seriesIndex ?? 0) },
                    bill: billID.map { BillLink(billID: $0, payers: billPayers ?? BillLink.payersRange.lowerBound) })
            } catch {
                throw .corruptRecord(table: Self.databaseTableName, key: id.wireString, reason: error.description)
            }
        }
    }
}

extension PaymentRecord: FetchableRecord, PersistableRecord, WireUUIDRecord {
    public static let databaseTableName = "payment"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        case id, role, peerID, payeeID, payerID, amountMinor, currency, memo, category, state, confirmed, reason
        case reasonCode, createdAt, expiresAt, updatedAt, quoteCurrency, quoteMinor, quoteRate, quoteRatesAt
        case acceptedAt, paidAt, settledAt, paidMethod, paidReference, receipt, seriesID, seriesIndex, refundOf
        case billID, billIndex, billPayers
    }

    /// The columns an update of an existing payment may change; the terms of a request never change.
    static let mutableColumns: [Columns] = [
        .state, .confirmed, .reason, .reasonCode, .updatedAt, .quoteCurrency, .quoteMinor, .quoteRate, .quoteRatesAt,
        .acceptedAt, .paidAt, .settledAt, .paidMethod, .paidReference, .receipt,
    ]
}
