import Foundation
public import GRDB
import InterPayCore

// The records every protocol step writes, column by column, from one list per record: `Codable` gives the same
// columns (the schema's CHECK constraints and the store's tests hold both to them), but going through `Encoder` cost
// more CPU than the rest of an insert, and GRDB's generic insert builds its statement on every call. These four are
// written on every step, with statements prepared once per connection (`insertRow`).

/// A record whose UUIDs are stored as lower-case text, as on the wire (GRDB's default is upper case).
public protocol WireUUIDRecord: EncodableRecord {}

extension WireUUIDRecord {
    /// Lower-case text, for every UUID column.
    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
        .lowercaseString
    }
}

/// A record the payment path writes with a cached statement: its columns and their values, in one order.
protocol LedgerRow: PersistableRecord {
    /// The table's columns, in the order of `columnValues`.
    static var columnNames: [String] { get }
    /// `INSERT INTO <table> (<columnNames>) VALUES (?, ...)`.
    static var insertSQL: String { get }
    /// The row's values, in the order of `columnNames`.
    var columnValues: [DatabaseValue] { get }
}

/// A value as the ledger stores it, `NULL` for nil (specialised per type: no existential on the way to SQLite).
func column(_ value: (some DatabaseValueConvertible)?) -> DatabaseValue {
    value?.databaseValue ?? .null
}

extension LedgerRow {
    static func makeInsertSQL() -> String {
        let placeholders = Array(repeating: "?", count: columnNames.count).joined(separator: ", ")
        return "INSERT INTO \(databaseTableName) (\(columnNames.joined(separator: ", "))) VALUES (\(placeholders))"
    }

    /// Fills a persistence container from `columnValues` (GRDB's generic writes and the tests use it).
    func fill(_ container: inout PersistenceContainer) {
        for (name, value) in zip(Self.columnNames, columnValues) { container[name] = value }
    }

    /// Inserts the row with the type's cached statement.
    func insertRow(_ db: Database) throws {
        try db.cachedStatement(sql: Self.insertSQL).execute(arguments: StatementArguments(columnValues))
    }
}

extension PaymentRecord: LedgerRow {
    static let columnNames = [
        "id", "role", "peerID", "payeeID", "payerID", "amountMinor", "currency", "memo", "category", "state",
        "confirmed", "reason", "reasonCode", "createdAt", "expiresAt", "updatedAt", "quoteCurrency", "quoteMinor",
        "quoteRate", "quoteRatesAt", "acceptedAt", "paidAt", "settledAt", "paidMethod", "paidReference", "receipt",
        "seriesID", "seriesIndex",
    ]
    static let insertSQL = makeInsertSQL()

    var columnValues: [DatabaseValue] {
        [
            column(id.wireString),
            column(role.rawValue),
            column(peerID.description),
            column(payeeID.description),
            column(payerID.description),
            column(amountMinor),
            column(currency),
            column(memo),
            column(category),
            column(state.rawValue),
            column(confirmed),
            column(reason),
            column(reasonCode?.rawValue),
            column(createdAt.secondsSince1970),
            column(expiresAt.secondsSince1970),
            column(updatedAt.secondsSince1970),
            column(quoteCurrency),
            column(quoteMinor),
            column(quoteRate),
            column(quoteRatesAt?.secondsSince1970),
            column(acceptedAt?.secondsSince1970),
            column(paidAt?.secondsSince1970),
            column(settledAt?.secondsSince1970),
            column(paidMethod?.rawValue),
            column(paidReference),
            column(receipt),
            column(seriesID?.wireString),
            column(seriesIndex),
        ]
    }

    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) { fill(&container) }
}

extension PaymentRecord {
    /// Inserts a new payment, or for an ID already stored updates only `mutableColumns`: the terms of a request never
    /// change.
    static let upsertSQL =
        insertSQL + " ON CONFLICT (id) DO UPDATE SET "
        + mutableColumns.map { "\($0.rawValue) = excluded.\($0.rawValue)" }.joined(separator: ", ")

    /// Inserts or updates the payment with a cached statement (see `upsertSQL`).
    func upsertRow(_ db: Database) throws {
        try db.cachedStatement(sql: Self.upsertSQL).execute(arguments: StatementArguments(columnValues))
    }
}

extension PaymentEventRecord: LedgerRow {
    static let columnNames = ["id", "paymentID", "at", "fromState", "toState", "cause", "messageID", "detail"]
    static let insertSQL = makeInsertSQL()

    var columnValues: [DatabaseValue] {
        [
            column(id),
            column(paymentID.wireString),
            column(at.secondsSince1970),
            column(fromState?.rawValue),
            column(toState.rawValue),
            column(cause.rawValue),
            column(messageID?.wireString),
            column(detail),
        ]
    }

    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) { fill(&container) }
}

extension OutboxRecord: LedgerRow {
    static let columnNames = [
        "messageID", "paymentID", "peerID", "frame", "seq", "createdAt", "retryUntil", "attempts", "lastSentAt",
    ]
    static let insertSQL = makeInsertSQL()

    var columnValues: [DatabaseValue] {
        [
            column(messageID.wireString),
            column(paymentID.wireString),
            column(peerID.description),
            column(frame),
            column(seq),
            column(createdAt.secondsSince1970),
            column(retryUntil?.secondsSince1970),
            column(attempts),
            column(lastSentAt?.secondsSince1970),
        ]
    }

    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) { fill(&container) }
}

extension SeenMessageRecord: LedgerRow {
    static let columnNames = ["messageID", "peerID", "paymentID", "receivedAt", "response"]
    static let insertSQL = makeInsertSQL()

    var columnValues: [DatabaseValue] {
        [
            column(messageID.wireString),
            column(peerID.description),
            column(paymentID?.wireString),
            column(receivedAt.secondsSince1970),
            column(response),
        ]
    }

    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) { fill(&container) }
}

// The same four records read back column by column, for the same reason: every step reads a payment, an ack reads
// its outbox row, every inbound frame asks for its seen row. A value that does not read back is a damaged row.

/// Reads one row's columns as the records store them, throwing `StoreError.corruptRecord` for a value that is not.
struct RowReader {
    let row: Row
    let table: String

    func value<Value: DatabaseValueConvertible>(_ column: String) throws(StoreError) -> Value {
        do {
            return try row.decode(Value.self, forColumn: column)
        } catch {
            throw damaged(column, "\(error)")
        }
    }

    func uuid(_ column: String) throws(StoreError) -> UUID {
        try uuid(column, text: value(column))
    }

    func optionalUUID(_ column: String) throws(StoreError) -> UUID? {
        let text: String? = try value(column)
        return try text.map { text throws(StoreError) in try uuid(column, text: text) }
    }

    private func uuid(_ column: String, text: String) throws(StoreError) -> UUID {
        guard let uuid = UUID(wireString: text) else { throw damaged(column, "'\(text)' is not a UUID") }
        return uuid
    }

    func peerID(_ column: String) throws(StoreError) -> PeerID {
        let text: String = try value(column)
        do {
            return try PeerID(parsing: text)
        } catch {
            throw damaged(column, error.description)
        }
    }

    func timestamp(_ column: String) throws(StoreError) -> Timestamp {
        Timestamp(secondsSince1970: try value(column))
    }

    func optionalTimestamp(_ column: String) throws(StoreError) -> Timestamp? {
        let seconds: Int64? = try value(column)
        return seconds.map(Timestamp.init(secondsSince1970:))
    }

    func code<Code: RawRepresentable<String>>(_ column: String) throws(StoreError) -> Code {
        try code(column, text: value(column))
    }

    func optionalCode<Code: RawRepresentable<String>>(_ column: String) throws(StoreError) -> Code? {
        let text: String? = try value(column)
        return try text.map { text throws(StoreError) in try code(column, text: text) }
    }

    private func code<Code: RawRepresentable<String>>(_ column: String, text: String) throws(StoreError) -> Code {
        guard let code = Code(rawValue: text) else { throw damaged(column, "unknown value '\(text)'") }
        return code
    }

    private func damaged(_ column: String, _ reason: String) -> StoreError {
        let value = (row["id"] as DatabaseValue?) ?? (row["messageID"] as DatabaseValue?)
        let key = value.flatMap { String.fromDatabaseValue($0) ?? Int64.fromDatabaseValue($0).map(String.init) } ?? "?"
        return .corruptRecord(table: table, key: key, reason: "\(column): \(reason)")
    }
}

extension PaymentRecord {
    /// Reads a `payment` row.
    public init(row: Row) throws {
        let reader = RowReader(row: row, table: Self.databaseTableName)
        id = try reader.uuid("id")
        role = try reader.code("role")
        peerID = try reader.peerID("peerID")
        payeeID = try reader.peerID("payeeID")
        payerID = try reader.peerID("payerID")
        amountMinor = try reader.value("amountMinor")
        currency = try reader.value("currency")
        memo = try reader.value("memo")
        category = try reader.value("category")
        state = try reader.code("state")
        confirmed = try reader.value("confirmed")
        reason = try reader.value("reason")
        reasonCode = try reader.optionalCode("reasonCode")
        createdAt = try reader.timestamp("createdAt")
        expiresAt = try reader.timestamp("expiresAt")
        updatedAt = try reader.timestamp("updatedAt")
        quoteCurrency = try reader.value("quoteCurrency")
        quoteMinor = try reader.value("quoteMinor")
        quoteRate = try reader.value("quoteRate")
        quoteRatesAt = try reader.optionalTimestamp("quoteRatesAt")
        acceptedAt = try reader.optionalTimestamp("acceptedAt")
        paidAt = try reader.optionalTimestamp("paidAt")
        settledAt = try reader.optionalTimestamp("settledAt")
        paidMethod = try reader.optionalCode("paidMethod")
        paidReference = try reader.value("paidReference")
        receipt = try reader.value("receipt")
        seriesID = try reader.optionalUUID("seriesID")
        seriesIndex = try reader.value("seriesIndex")
    }
}

extension PaymentEventRecord {
    /// Reads a `paymentEvent` row.
    public init(row: Row) throws {
        let reader = RowReader(row: row, table: Self.databaseTableName)
        id = try reader.value("id")
        paymentID = try reader.uuid("paymentID")
        at = try reader.timestamp("at")
        fromState = try reader.optionalCode("fromState")
        toState = try reader.code("toState")
        cause = try reader.code("cause")
        messageID = try reader.optionalUUID("messageID")
        detail = try reader.value("detail")
    }
}

extension OutboxRecord {
    /// Reads an `outbox` row.
    public init(row: Row) throws {
        let reader = RowReader(row: row, table: Self.databaseTableName)
        messageID = try reader.uuid("messageID")
        paymentID = try reader.uuid("paymentID")
        peerID = try reader.peerID("peerID")
        frame = try reader.value("frame")
        seq = try reader.value("seq")
        createdAt = try reader.timestamp("createdAt")
        retryUntil = try reader.optionalTimestamp("retryUntil")
        attempts = try reader.value("attempts")
        lastSentAt = try reader.optionalTimestamp("lastSentAt")
    }
}

extension SeenMessageRecord {
    /// Reads a `seenMessage` row.
    public init(row: Row) throws {
        let reader = RowReader(row: row, table: Self.databaseTableName)
        messageID = try reader.uuid("messageID")
        peerID = try reader.peerID("peerID")
        paymentID = try reader.optionalUUID("paymentID")
        receivedAt = try reader.timestamp("receivedAt")
        response = try reader.value("response")
    }
}
