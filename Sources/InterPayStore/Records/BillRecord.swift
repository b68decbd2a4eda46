public import Foundation
public import GRDB
public import InterPayCore

/// A split bill this side made as its payee (PROTOCOL.md §8.8), in the `bill` table: its terms. Its shares are
/// payments whose `billID` is its ID (and whose role is payee); its state is derived from theirs (`BillState`).
public struct BillRecord: Sendable, Hashable {
    /// The bill's ID, which its shares' requests carry to payers that announce `bills`.
    public var id: UUID
    /// The total, in minor units of `currency`; its shares add up to it.
    public var totalMinor: Int64
    /// The ISO 4217 code of the total and of every share.
    public var currency: String
    /// What it is for, the memo of every share.
    public var memo: String
    /// The category of every share.
    public var category: String?
    /// How many payers (shares) it has.
    public var payers: Int
    /// When it was made.
    public var createdAt: Timestamp
    /// When the user cancelled it (its pending shares), if ever.
    public var cancelledAt: Timestamp?

    /// A bill's terms.
    public init(
        id: UUID, total: Money, memo: String, category: String?, payers: Int, createdAt: Timestamp,
        cancelledAt: Timestamp? = nil
    ) {
        self.id = id
        self.totalMinor = total.minorUnits
        self.currency = total.currency.code
        self.memo = memo
        self.category = category
        self.payers = payers
        self.createdAt = createdAt
        self.cancelledAt = cancelledAt
    }

    /// The columns of `bill`.
    public enum Columns: String, ColumnExpression, Sendable {
        case id, totalMinor, currency, memo, category, payers, createdAt, cancelledAt
    }
}

extension BillRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "bill"

    public init(row: Row) throws {
        let text: String = row[Columns.id]
        guard let id = UUID(uuidString: text) else {
            throw StoreError.corruptRecord(table: Self.databaseTableName, key: text, reason: "bill ID")
        }
        self.id = id
        totalMinor = row[Columns.totalMinor]
        currency = row[Columns.currency]
        memo = row[Columns.memo]
        category = row[Columns.category]
        payers = row[Columns.payers]
        createdAt = Timestamp(secondsSince1970: row[Columns.createdAt])
        cancelledAt = (row[Columns.cancelledAt] as Int64?).map { Timestamp(secondsSince1970: $0) }
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id.wireString
        container[Columns.totalMinor] = totalMinor
        container[Columns.currency] = currency
        container[Columns.memo] = memo
        container[Columns.category] = category
        container[Columns.payers] = payers
        container[Columns.createdAt] = createdAt.secondsSince1970
        container[Columns.cancelledAt] = cancelledAt?.secondsSince1970
    }
}

/// A bill with its shares, newest share first by payer order: what `bills` lists.
public struct BillView: Sendable, Hashable {
    /// The bill's terms.
    public var bill: BillRecord
    /// Its shares, in the order the payers were named.
    public var shares: [PaymentView]

    /// The bill's state, from its shares'.
    public var state: BillState { BillState(shares: shares.map(\.record.state)) }
}

extension Ledger {
    /// Inserts a new bill (its shares are inserted as payments, with `billID` set).
    public func insertBill(_ bill: BillRecord) throws {
        try bill.insert(db)
    }

    /// The bill with this ID, if this side made it.
    public func bill(id: UUID) throws -> BillRecord? {
        try BillRecord.fetchOne(db, key: id.wireString)
    }

    /// A bill's shares, in the order its payers were named (their payments' creation order).
    public func shares(ofBill id: UUID) throws -> [PaymentRecord] {
        try PaymentRecord.filter(sql: "billID = ? AND role = 'payee'", arguments: [id.wireString])
            .order(PaymentRecord.Columns.createdAt, PaymentRecord.Columns.billIndex)
            .fetchAll(db)
    }

    /// Records that the user cancelled the bill at `now`.
    public func markBillCancelled(_ id: UUID, at now: Timestamp) throws {
        try db.execute(
            sql: "UPDATE bill SET cancelledAt = COALESCE(cancelledAt, ?) WHERE id = ?",
            arguments: [now.secondsSince1970, id.wireString])
    }
}

extension AppDatabase {
    /// The bills this side made, newest first, each with its shares (at most `limit` bills).
    public func billViews(limit: Int = 200, id: UUID? = nil) async throws(StoreError) -> [BillView] {
        try await read("list bills") { db in
            var request = BillRecord.order(BillRecord.Columns.createdAt.desc, BillRecord.Columns.id).limit(limit)
            if let id { request = request.filter(key: id.wireString) }
            let bills = try request.fetchAll(db)
            let views = try Self.paymentViewsOfBills(bills.map(\.id), in: db)
            return bills.map { bill in BillView(bill: bill, shares: views[bill.id] ?? []) }
        }
    }

    /// The bills whose ID starts or ends with `prefix` (as payments are found by a part of their ID).
    public func bills(idPrefix: String) async throws(StoreError) -> [BillRecord] {
        let prefix = try Self.checkedPrefix(idPrefix)
        return try await read("find bill \(prefix)") { db in
            try BillRecord.filter(sql: "id GLOB ? OR id GLOB ?", arguments: Self.idMatchArguments(prefix)).fetchAll(db)
        }
    }
}
