public import Foundation
public import GRDB
public import InterPayCore

/// An idempotency key of `interpay send` and the payment it created (`sendKey`): a `send` repeated with the same
/// key within `SendKeyRecord.lifetime` returns that payment instead of making a second one.
///
/// `fingerprint` sums up what was asked (peer, amount, memo, category, lifetime), so that the same key with other
/// parameters is told apart from a retry.
public struct SendKeyRecord: Sendable, Hashable, Codable {
    /// The key, as the client chose it (1 to `maxKeyLength` printable ASCII characters).
    public var key: String
    /// The payment the first `send` with this key created.
    public var paymentID: UUID
    /// What that `send` asked for, in a canonical text form.
    public var fingerprint: String
    /// When the key was first used.
    public var createdAt: Timestamp

    /// How long a key is remembered: 24 hours.
    public static let lifetime: Int64 = 86_400
    /// The longest key accepted.
    public static let maxKeyLength = 128

    /// Records a key.
    public init(key: String, paymentID: UUID, fingerprint: String, createdAt: Timestamp) {
        self.key = key
        self.paymentID = paymentID
        self.fingerprint = fingerprint
        self.createdAt = createdAt
    }

    /// Whether `key` is acceptable: 1 to `maxKeyLength` characters from `A–Z a–z 0–9 - _ . : ~`.
    public static func isValid(_ key: String) -> Bool {
        (1...maxKeyLength).contains(key.utf8.count)
            && key.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || [0x2D, 0x5F, 0x2E, 0x3A, 0x7E].contains(byte)
            }
    }

    /// The columns of `sendKey`.
    public enum Columns: String, ColumnExpression, Sendable {
        case key, paymentID, fingerprint, createdAt
    }
}

extension SendKeyRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "sendKey"

    public init(row: Row) throws {
        guard let id = UUID(uuidString: row[Columns.paymentID] as String) else {
            throw StoreError.corruptRecord(table: Self.databaseTableName, key: row[Columns.key], reason: "payment ID")
        }
        self.init(
            key: row[Columns.key], paymentID: id, fingerprint: row[Columns.fingerprint],
            createdAt: Timestamp(secondsSince1970: row[Columns.createdAt]))
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container[Columns.key] = key
        container[Columns.paymentID] = paymentID.wireString
        container[Columns.fingerprint] = fingerprint
        container[Columns.createdAt] = createdAt.secondsSince1970
    }
}

extension AppDatabase {
    /// The payment created by the `send` that used `key` within the last `SendKeyRecord.lifetime` before `now`.
    public func sendKey(_ key: String, now: Timestamp) async throws(StoreError) -> SendKeyRecord? {
        try await read("look up a send key") { db in
            try Ledger(db).sendKey(key, now: now)
        }
    }
}
