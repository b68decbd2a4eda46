import Foundation
import GRDB
import InterPayCore

/// A payment as the views show it: the record and its peer's names, read together.
public struct PaymentView: Sendable, Hashable {
    /// The payment.
    public var record: PaymentRecord
    /// The name the peer last announced, if the peer is known.
    public var announcedName: String?
    /// The name pinned when pairing, if the peer is paired.
    public var pinnedName: String?
    /// The name a paired peer was paired under, once the user renamed it (`TrustedPeerRecord.pairedName`).
    public var pairedName: String? = nil
    /// The refunds the payment carries (PROTOCOL.md §8.7), read with it.
    public var refunds = RefundTotals(count: 0, minor: 0)
}

/// One payment with its whole event log (`AppDatabase.paymentDetail(idPrefix:)`).
public struct PaymentDetail: Sendable, Hashable {
    /// The payments the prefix matches, newest first; the detail is about the first when there is exactly one.
    public var matches: [PaymentView]
    /// The event log of the only match, oldest first; empty unless exactly one payment matches.
    public var events: [PaymentEventRecord]
}

extension AppDatabase {
    /// The payments that match `filter`, newest first, each with its peer's names: one read (joins, SQL `LIMIT`).
    public func paymentViews(filter: PaymentFilter = PaymentFilter()) async throws(StoreError) -> [PaymentView] {
        var conditions: [String] = []
        var arguments = StatementArguments()
        func condition(_ sql: String, _ value: (any DatabaseValueConvertible)?) {
            guard let value else { return }
            conditions.append(sql)
            _ = arguments.append(contentsOf: [value])
        }
        condition("payment.state = ?", filter.state?.rawValue)
        condition("payment.role = ?", filter.role?.rawValue)
        condition("payment.peerID = ?", filter.peerID?.description)
        if filter.finalOnly { conditions.append("payment.state != 'pending'") }
        condition("payment.createdAt >= ?", filter.createdFrom?.secondsSince1970)
        condition("payment.createdAt < ?", filter.createdBefore?.secondsSince1970)
        var sql = Self.paymentViewSelect
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY payment.createdAt DESC, payment.id"
        if let limit = filter.limit {
            sql += " LIMIT ?"
            _ = arguments.append(contentsOf: [max(0, limit)])
        }
        return try await read("list payments") { [sql, arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.paymentView)
        }
    }

    /// The payments whose ID starts or ends with `idPrefix` (as `payments(idPrefix:)`), with their peers' names, and the
    /// event log of the only one if exactly one matches: one read.
    public func paymentDetail(idPrefix: String) async throws(StoreError) -> PaymentDetail {
        let prefix = try Self.checkedPrefix(idPrefix)
        let sql =
            Self.paymentViewSelect
            + " WHERE (payment.id GLOB ? OR payment.id GLOB ?) ORDER BY payment.createdAt DESC, payment.id"
        return try await read("find payment \(prefix)") { db in
            let matches = try Row.fetchAll(db, sql: sql, arguments: Self.idMatchArguments(prefix)).map(
                Self.paymentView)
            guard matches.count == 1, let only = matches.first else {
                return PaymentDetail(matches: matches, events: [])
            }
            let events =
                try PaymentEventRecord
                .filter(PaymentEventRecord.Columns.paymentID == only.record.id.wireString)
                .order(PaymentEventRecord.Columns.id)
                .fetchAll(db)
            return PaymentDetail(matches: matches, events: events)
        }
    }

    /// `record` with its peer's names: one read of two rows.
    public func paymentView(_ record: PaymentRecord) async throws(StoreError) -> PaymentView {
        try await read("read the names of \(record.peerID.shortDescription)") { db in
            try Ledger(db).paymentView(of: record)
        }
    }

    private static let paymentViewSelect = """
        SELECT payment.*, peer.name AS announcedName, trustedPeer.name AS pinnedName,
            trustedPeer.pairedName AS pairedName,
            (SELECT COUNT(*) FROM payment AS refund WHERE refund.refundOf = payment.id) AS refundCount,
            (SELECT COALESCE(SUM(refund.amountMinor), 0) FROM payment AS refund WHERE refund.refundOf = payment.id)
                AS refundedMinor
        FROM payment
        LEFT JOIN peer ON peer.peerID = payment.peerID LEFT JOIN trustedPeer ON trustedPeer.peerID = payment.peerID
        """

    /// The shares of `bills` (payments of this side's own bills), by bill, in the order their payers were named.
    static func paymentViewsOfBills(_ bills: [UUID], in db: Database) throws -> [UUID: [PaymentView]] {
        guard !bills.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: bills.count).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db,
            sql: paymentViewSelect
                + " WHERE payment.role = 'payee' AND payment.billID IN (\(marks)) ORDER BY payment.billIndex",
            arguments: StatementArguments(bills.map(\.wireString)))
        var views: [UUID: [PaymentView]] = [:]
        for row in rows {
            let view = try paymentView(row)
            if let bill = view.record.billID { views[bill, default: []].append(view) }
        }
        return views
    }

    private static func paymentView(_ row: Row) throws -> PaymentView {
        PaymentView(
            record: try PaymentRecord(row: row), announcedName: row["announcedName"], pinnedName: row["pinnedName"],
            pairedName: row["pairedName"],
            refunds: RefundTotals(count: row["refundCount"] ?? 0, minor: row["refundedMinor"] ?? 0))
    }
}

extension Ledger {
    /// `record` with its peer's names, as the views show it (its refunds not read), inside a step's transaction or
    /// a read: one cached statement.
    public func paymentView(of record: PaymentRecord) throws -> PaymentView {
        let peer = record.peerID.description
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT (SELECT name FROM peer WHERE peerID = ?1), (SELECT name FROM trustedPeer WHERE peerID = ?1),
                        (SELECT pairedName FROM trustedPeer WHERE peerID = ?1)
                    """),
            arguments: [peer])
        return PaymentView(record: record, announcedName: row?[0], pinnedName: row?[1], pairedName: row?[2])
    }
}
