import InterPayCore

/// What went wrong in the ledger, with the context a log line or CLI message needs.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file could not be created, opened or configured.
    case cannotOpen(path: String, reason: String)
    /// A schema migration failed; the database was left at its previous version.
    case migrationFailed(migration: String?, reason: String)
    /// A write broke a rule of the schema (a CHECK, NOT NULL, UNIQUE or foreign key constraint, or a trigger such
    /// as the append-only event log). The whole transaction was rolled back.
    case constraintViolated(operation: String, reason: String)
    /// SQLite failed for another reason (I/O, disk full, busy, integer overflow in a sum…).
    case database(operation: String, reason: String)
    /// A value handed to the store cannot be stored as asked (a frame that cannot be encoded, or one that is never
    /// acknowledged and so never waits in the outbox).
    case invalidValue(operation: String, reason: String)
    /// A stored row could not be turned back into a value (e.g. a currency that is no longer known).
    case corruptRecord(table: String, key: String, reason: String)
    /// A payment ID prefix typed by a person is too short or has characters a UUID cannot contain.
    case invalidPrefix(String, reason: String)
    /// The task was cancelled before the database access completed; nothing was written.
    case cancelled(operation: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the ledger at \(path): \(reason)"
        case .migrationFailed(let migration?, let reason): "ledger migration '\(migration)' failed: \(reason)"
        case .migrationFailed(nil, let reason): "ledger migration failed: \(reason)"
        case .constraintViolated(let operation, let reason): "\(operation): refused by the ledger schema: \(reason)"
        case .database(let operation, let reason): "\(operation): database error: \(reason)"
        case .invalidValue(let operation, let reason): "\(operation): \(reason)"
        case .corruptRecord(let table, let key, let reason): "the \(table) row \(key) is damaged: \(reason)"
        case .invalidPrefix(let prefix, let reason):
            "'\(SafeText.escaped(prefix))' is not a payment or series ID: \(reason)"
        case .cancelled(let operation): "\(operation): cancelled"
        }
    }
}
