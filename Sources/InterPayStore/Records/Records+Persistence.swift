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
    /// `SELECT <columnNames> FROM <table>`: the columns in the order `columnValues` writes them.
    static var selectSQL: String { get }
    /// The row's values, in the order of `columnNames` (nil is `NULL`).
    ///
    /// Existentials, not `DatabaseValue`s: GRDB's `StatementArguments` initializer for a sequence of concrete values
    /// is generic and not specialised across modules, and it maps the values through a key path that it instantiates
    /// again on every call; that alone was 7 % of the engine's CPU under load. The initializer for optional
    /// existentials maps them with a closure.
    var columnValues: [(any DatabaseValueConvertible)?] { get }
    /// Reads a row of the table.
    init(_ reader: RowReader) throws
}

extension LedgerRow {
    static func makeInsertSQL() -> String {
        let placeholders = Array(repeating: "?", count: columnNames.count).joined(separator: ", ")
        return "INSERT INTO \(databaseTableName) (\(columnNames.joined(separator: ", "))) VALUES (\(placeholders))"
    }

    static func makeSelectSQL() -> String {
        "SELECT \(columnNames.joined(separator: ", ")) FROM \(databaseTableName)"
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
        "seriesID", "seriesIndex", "refundOf", "billID", "billIndex", "billPayers",
    ]
    static let insertSQL = makeInsertSQL()
    static let selectSQL = makeSelectSQL()

    var columnValues: [(any DatabaseValueConvertible)?] {
        [
            id.wireString,
            role.rawValue,
            peerID.description,
            payeeID.description,
            payerID.description,
            amountMinor,
            currency,
            memo,
            category,
            state.rawValue,
            confirmed,
            reason,
            reasonCode?.rawValue,
            createdAt.secondsSince1970,
            expiresAt.secondsSince1970,
            updatedAt.secondsSince1970,
            quoteCurrency,
            quoteMinor,
            quoteRate,
            quoteRatesAt?.secondsSince1970,
            acceptedAt?.secondsSince1970,
            paidAt?.secondsSince1970,
            settledAt?.secondsSince1970,
            paidMethod?.rawValue,
            paidReference,
            receipt,
            seriesID?.wireString,
            seriesIndex,
            refundOf?.wireString,
            billID?.wireString,
            billIndex,
            billPayers,
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
    static let selectSQL = makeSelectSQL()

    var columnValues: [(any DatabaseValueConvertible)?] {
        [
            id,
            paymentID.wireString,
            at.secondsSince1970,
            fromState?.rawValue,
            toState.rawValue,
            cause.rawValue,
            messageID?.wireString,
            detail,
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
    static let selectSQL = makeSelectSQL()

    var columnValues: [(any DatabaseValueConvertible)?] {
        [
            messageID.wireString,
            paymentID.wireString,
            peerID.description,
            frame,
            seq,
            createdAt.secondsSince1970,
            retryUntil?.secondsSince1970,
            attempts,
            lastSentAt?.secondsSince1970,
        ]
    }

    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) { fill(&container) }
}

extension SeenMessageRecord: LedgerRow {
    static let columnNames = ["messageID", "peerID", "paymentID", "receivedAt", "response"]
    static let insertSQL = makeInsertSQL()
    static let selectSQL = makeSelectSQL()

    var columnValues: [(any DatabaseValueConvertible)?] {
        [
            messageID.wireString,
            peerID.description,
            paymentID?.wireString,
            receivedAt.secondsSince1970,
            response,
        ]
    }

    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) { fill(&container) }
}

// The same four records read back column by column, for the same reason: every step reads a payment, an ack reads
// its outbox row, every inbound frame asks for its seen row. A value that does not read back is a damaged row.

/// Reads one row's columns as the records store them, throwing `StoreError.corruptRecord` for a value that is not.
///
/// The row is either GRDB's `Row` (queries of the query interface, read by column name), or the current row of a
/// statement that selects a `LedgerRow`'s `columnNames` in order (`LedgerRow.fetchOneRow`, the payment path's lookups),
/// read by position without building a `Row`: GRDB's `Row` for a statement maps every column's lower-cased name to its
/// index first, which cost more than reading the payment itself.
struct RowReader {
    enum Source {
        case row(Row)
        case statement(SQLiteStatement, columns: [String])
    }

    let source: Source
    let table: String

    init(row: Row, table: String) {
        self.source = .row(row)
        self.table = table
    }

    init(statement: SQLiteStatement, columns: [String], table: String) {
        self.source = .statement(statement, columns: columns)
        self.table = table
    }

    func value<Value: DatabaseValueConvertible>(_ column: String) throws(StoreError) -> Value {
        switch source {
        case .row(let row):
            do {
                return try row.decode(Value.self, forColumn: column)
            } catch {
                throw damaged(column, "\(error)")
            }
        case .statement(let statement, let columns):
            guard let index = columns.firstIndex(of: column) else { throw damaged(column, "not selected") }
            let stored = DatabaseValue(sqliteStatement: statement, index: CInt(index))
            guard let value = Value.fromDatabaseValue(stored) else {
                throw damaged(column, "\(stored) is not a \(Value.self)")
            }
            return value
        }
    }

    /// The stored value of `column`, if the row has that column.
    private func stored(_ column: String) -> DatabaseValue? {
        switch source {
        case .row(let row):
            return row[column]
        case .statement(let statement, let columns):
            return columns.firstIndex(of: column).map { DatabaseValue(sqliteStatement: statement, index: CInt($0)) }
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
        let value = stored("id") ?? stored("messageID")
        let key = value.flatMap { String.fromDatabaseValue($0) ?? Int64.fromDatabaseValue($0).map(String.init) } ?? "?"
        return .corruptRecord(table: table, key: key, reason: "\(column): \(reason)")
    }
}

extension PaymentRecord {
    /// Reads a `payment` row.
    public init(row: Row) throws {
        try self.init(RowReader(row: row, table: Self.databaseTableName))
    }

    init(_ reader: RowReader) throws {
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
        refundOf = try reader.optionalUUID("refundOf")
        billID = try reader.optionalUUID("billID")
        billIndex = try reader.value("billIndex")
        billPayers = try reader.value("billPayers")
    }
}

extension PaymentEventRecord {
    /// Reads a `paymentEvent` row.
    public init(row: Row) throws {
        try self.init(RowReader(row: row, table: Self.databaseTableName))
    }

    init(_ reader: RowReader) throws {
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
        try self.init(RowReader(row: row, table: Self.databaseTableName))
    }

    init(_ reader: RowReader) throws {
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
        try self.init(RowReader(row: row, table: Self.databaseTableName))
    }

    init(_ reader: RowReader) throws {
        messageID = try reader.uuid("messageID")
        peerID = try reader.peerID("peerID")
        paymentID = try reader.optionalUUID("paymentID")
        receivedAt = try reader.timestamp("receivedAt")
        response = try reader.value("response")
    }
}

extension LedgerRow {
    /// The one row that `statement` (a `selectSQL` with a condition on a unique key) finds with `arguments`, if any,
    /// read by position (see `RowReader`).
    static func fetchOneRow(_ statement: Statement, arguments: StatementArguments) throws -> Self? {
        let cursor = try LedgerRowCursor<Self>(statement: statement, arguments: arguments)
        let row = try cursor.next()
        // Stepped to its end, so that the cached statement is not left on a row (GRDB's cursors reset it when they
        // are released; that reset is not public).
        while try cursor.next() != nil {}
        return row
    }
}

/// GRDB's cursor protocol over a statement that selects a `LedgerRow`'s columns, making each record from the
/// statement's current row (`RowReader`) instead of from a `Row`. The underscored members are the protocol's
/// requirements for cursors defined outside GRDB.
final class LedgerRowCursor<Record: LedgerRow>: DatabaseCursor {
    typealias Element = Record
    let _statement: Statement
    var _isDone = false

    init(statement: Statement, arguments: StatementArguments) throws {
        _statement = statement
        try statement.setArguments(arguments)
    }

    func _element(sqliteStatement: SQLiteStatement) throws -> Record {
        try Record(
            RowReader(statement: sqliteStatement, columns: Record.columnNames, table: Record.databaseTableName))
    }
}
