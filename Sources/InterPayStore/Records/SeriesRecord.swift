public import Foundation
public import GRDB
public import InterPayCore

/// One subscription series as stored in the `series` table (PROTOCOL.md §8.6): its terms, which never change, this
/// side's state of it, and the one series frame of ours waiting for the peer's ack.
///
/// Both sides keep a row: the payee (`role = payee`), which offered it and requests each period, and the payer
/// (`role = payer`), which approved or declined it.
public struct SeriesRecord: Sendable, Hashable, Codable, Identifiable {
    /// The series ID, chosen by the payee, stored in lower-case text form.
    public var id: UUID
    /// This side's role: `payee` offered the series, `payer` is asked to pay.
    public var role: PaymentRole
    /// The other side.
    public var peerID: PeerID
    /// Who asks for the money each period.
    public var payeeID: PeerID
    /// Who is asked to pay.
    public var payerID: PeerID
    /// Each period's amount in minor units of `currency`.
    public var amountMinor: Int64
    /// The ISO 4217 code of the amount.
    public var currency: String
    /// How often (`week`, `month`, `year`).
    public var period: SubscriptionPeriod
    /// When the first period falls due.
    public var start: Timestamp
    /// How many periods, nil: until ended.
    public var count: Int?
    /// The payee's time zone, an IANA identifier.
    public var timeZone: String
    /// The length of every period in seconds when the payee uses fixed-length periods, else nil.
    public var periodSeconds: Int64?
    /// Each request's memo.
    public var memo: String
    /// Each request's category.
    public var category: String?
    /// This side's state of the series.
    public var state: SeriesState
    /// The payer's cap in minor units of `currency`, once approved.
    public var capMinor: Int64?
    /// The payee: the last period requested (nil before the first). The payer: the last period accepted without
    /// its user.
    public var lastIndex: Int?
    /// Why it was declined or ended, if said.
    public var reason: String?
    /// Who ended or declined it: `payee` or `payer`.
    public var endedBy: PaymentRole?
    /// When this side stored it.
    public var createdAt: Timestamp
    /// When this row last changed.
    public var updatedAt: Timestamp
    /// The message ID of our series frame waiting for the peer's ack, if any.
    public var outMessageID: UUID?
    /// That frame's encoded body, resent as it is on every new session until acknowledged.
    public var outFrame: Data?
    /// The payer: how many periods the approval accepts without the user in all, if it counts periods.
    public var approvedPeriods: Int?
    /// The payer: the total, in minor units of `currency`, the approval accepts without the user, if it counts an
    /// amount.
    public var approvedTotalMinor: Int64?
    /// The payer: periods accepted without the user since the approval.
    public var autoAccepted: Int = 0
    /// The payer: their sum, in minor units of `currency`.
    public var autoAcceptedMinor: Int64 = 0
    /// The payer: when the last period was accepted without the user.
    public var autoAcceptedAt: Timestamp?

    /// A new row from an offer's terms.
    public init(id: UUID, offer: SeriesOffer, role: PaymentRole, state: SeriesState, now: Timestamp) {
        self.id = id
        self.role = role
        self.peerID = role == .payee ? offer.payer : offer.payee
        self.payeeID = offer.payee
        self.payerID = offer.payer
        self.amountMinor = offer.amount.minorUnits
        self.currency = offer.amount.currency.code
        self.period = offer.period
        self.start = offer.start
        self.count = offer.count
        self.timeZone = offer.timeZone
        self.periodSeconds = offer.periodSeconds
        self.memo = offer.memo
        self.category = offer.category
        self.state = state
        self.createdAt = now
        self.updatedAt = now
    }

    /// Each period's amount.
    public var amount: Money {
        get throws(StoreError) {
            do {
                return Money(minorUnits: amountMinor, currency: try CurrencyCode(currency))
            } catch {
                throw .corruptRecord(table: Self.databaseTableName, key: id.wireString, reason: error.description)
            }
        }
    }

    /// The approved cap, once there is one.
    public var cap: Money? {
        get throws(StoreError) {
            guard let capMinor else { return nil }
            return Money(minorUnits: capMinor, currency: try amount.currency)
        }
    }

    /// The terms as the core models them.
    public var offer: SeriesOffer {
        get throws(StoreError) {
            let amount = try amount
            do {
                return try SeriesOffer(
                    payee: payeeID, payer: payerID, amount: amount, period: period, start: start, count: count,
                    timeZone: timeZone, periodSeconds: periodSeconds, memo: memo, category: category)
            } catch {
                throw .corruptRecord(table: Self.databaseTableName, key: id.wireString, reason: error.description)
            }
        }
    }

    /// The total the approval accepts without the user, when it counts an amount.
    public var approvedTotal: Money? {
        get throws(StoreError) {
            guard let approvedTotalMinor else { return nil }
            return Money(minorUnits: approvedTotalMinor, currency: try amount.currency)
        }
    }

    /// Whether the approval's total is used up, so that a request of `amount` more waits for the user.
    public func approvalUsed(adding amount: Money) -> Bool {
        if let approvedPeriods, autoAccepted >= approvedPeriods { return true }
        if let approvedTotalMinor {
            let (sum, overflow) = autoAcceptedMinor.addingReportingOverflow(amount.minorUnits)
            if overflow || sum > approvedTotalMinor { return true }
        }
        return false
    }

    /// The schedule of the series: the payee's time zone (UTC when this system does not know it).
    public var calendar: SubscriptionCalendar {
        SubscriptionCalendar(
            start: start, period: period,
            timeZone: TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? .gmt,
            fixedSeconds: periodSeconds)
    }
}

extension SeriesRecord: FetchableRecord, PersistableRecord, WireUUIDRecord {
    public static let databaseTableName = "series"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        case id, role, peerID, state, outMessageID, createdAt, updatedAt
    }
}

/// A series as listed: the row, with how many of its periods were requested, accepted and paid on this side.
public struct SeriesView: Sendable, Hashable {
    /// The stored series.
    public var series: SeriesRecord
    /// Payments of the series stored here.
    public var instances: Int
    /// Of those, how many were accepted, paid or settled.
    public var accepted: Int
    /// Of those, how many were paid or settled.
    public var paid: Int
    /// The name the peer last announced, if the peer is known.
    public var announcedName: String?
    /// The name pinned when pairing, if the peer is paired.
    public var pinnedName: String?
    /// The name a paired peer was paired under, once the user renamed it (`TrustedPeerRecord.pairedName`).
    public var pairedName: String?

    /// A listed series.
    public init(
        series: SeriesRecord, instances: Int, accepted: Int, paid: Int, announcedName: String?, pinnedName: String?,
        pairedName: String? = nil
    ) {
        self.series = series
        self.instances = instances
        self.accepted = accepted
        self.paid = paid
        self.announcedName = announcedName
        self.pinnedName = pinnedName
        self.pairedName = pairedName
    }
}
