import Foundation
public import GRDB

/// The ledger: every payment, its event log, the outbox of unacknowledged frames, the answers given to incoming
/// frames and the peers we know, in one SQLite database (GRDB).
///
/// Open the daemon's file with `init(path:)` (WAL, `synchronous = FULL`, foreign keys on, file mode 0600) and
/// tests' databases with `inMemory()`. Both run the schema migrations before returning. Every query is `async`
/// and runs on GRDB's own queues, so no cooperative thread ever waits for SQLite.
///
/// One protocol step is written with `apply(_:)`: a `LedgerChange` is committed in a single transaction, so a
/// state change, its event, its outbound frame and the answer to an incoming frame are stored together or not at
/// all (PROTOCOL.md §9.1).
public struct AppDatabase: Sendable {
    /// The connection (a `DatabasePool` for files, a `DatabaseQueue` in memory).
    let writer: any DatabaseWriter

    /// Read-only access, e.g. for GRDB's `ValueObservation`.
    public var reader: any DatabaseReader { writer }

    /// Uses an open connection and migrates it. `init(path:)` and `inMemory()` are the usual ways in.
    public init(_ writer: any DatabaseWriter) throws(StoreError) {
        self.writer = writer
        do {
            try Self.migrator.migrate(writer)
        } catch let error as DatabaseError {
            throw .migrationFailed(migration: nil, reason: error.message ?? error.description)
        } catch {
            throw .migrationFailed(migration: nil, reason: String(describing: error))
        }
    }

    /// Opens the ledger file at `path`, creating it (mode 0600) when missing, and migrates it.
    ///
    /// The directory must exist. The file's mode is set to 0600 even when it existed; SQLite gives the `-wal` and
    /// `-shm` files the mode of the database file.
    public init(path: String) throws(StoreError) {
        Self.applySQLiteSettings()
        try Self.restrictPermissions(ofFileAt: path)
        var configuration = Self.configuration
        // Every connection commits durably. (Readers inherit it too, which costs nothing.)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Each protocol step runs in a savepoint of its own (`transact`), whose undo journal SQLite keeps in a
            // temporary file by default: a write of every page a step touches, to a file that is thrown away at the
            // commit. In memory it costs a copy of those pages; durability comes from the WAL, not from it.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Pages read through a memory map rather than a `pread` each into SQLite's own 2 MB cache: once a busy
            // ledger outgrows that cache, every step's index lookups went to the kernel. Mapped pages are the
            // kernel's page cache, shared and reclaimable; nothing is written through the map.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // DatabasePool switches its writer to `synchronous = NORMAL` after `prepareDatabase` when it enables
            // WAL. A ledger acknowledges frames only after they are stored, so a commit must survive power loss.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // Pages freed by retention (`prune`) go back to the file system with `incremental_vacuum`, which
                // needs this mode; a ledger made before it is converted once by a VACUUM (instant on a new file).
                if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 {
                    try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                    try db.execute(sql: "VACUUM")
                }
            }
        } catch let error as DatabaseError {
            throw .cannotOpen(path: path, reason: error.message ?? error.description)
        } catch {
            throw .cannotOpen(path: path, reason: String(describing: error))
        }
        try self.init(pool)
    }

    /// A fresh, migrated database in memory, for tests.
    public static func inMemory() throws(StoreError) -> AppDatabase {
        applySQLiteSettings()
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: configuration)
        } catch {
            throw .cannotOpen(path: ":memory:", reason: String(describing: error))
        }
        return try AppDatabase(queue)
    }

    /// The names of the migrations applied to this database, in order.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        try await read("read the applied migrations") { db in
            try Self.migrator.appliedMigrations(db)
        }
    }

    // MARK: Opening

    /// Settings shared by files and memory.
    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.label = "InterPayStore"
        configuration.foreignKeysEnabled = true
        // Wait for another process (e.g. `sqlite3` inspecting the file) instead of failing at once.
        configuration.busyMode = .timeout(5)
        return configuration
    }

    /// Creates the file with mode 0600 when missing and sets 0600 on it (and on existing `-wal`/`-shm` files).
    private static func restrictPermissions(ofFileAt path: String) throws(StoreError) {
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: path) {
            // An empty file is a valid, empty SQLite database.
            guard fileManager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                let directory = (path as NSString).deletingLastPathComponent
                throw .cannotOpen(
                    path: path,
                    reason: fileManager.fileExists(atPath: directory.isEmpty ? "." : directory)
                        ? "cannot create the file" : "the directory \(directory) does not exist")
            }
        }
        for file in [path, path + "-wal", path + "-shm"] where fileManager.fileExists(atPath: file) {
            do {
                try fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            } catch {
                throw .cannotOpen(path: path, reason: "cannot restrict \(file) to mode 0600: \(error)")
            }
        }
    }

    // MARK: Access

    /// Runs `value` in a read transaction; maps failures to `StoreError` naming `operation`.
    func read<T: Sendable>(
        _ operation: String, _ value: @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        try await mappingFailure(to: operation) { try await writer.read(value) }
    }

    /// Runs `updates` in one write transaction (all or nothing); maps failures to `StoreError` naming `operation`.
    func write<T: Sendable>(
        _ operation: String, _ updates: @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        try await mappingFailure(to: operation) { try await writer.write(updates) }
    }

    /// Runs `access`; maps its failure to `StoreError` naming `operation`.
    func mappingFailure<T: Sendable>(
        to operation: String, _ access: () async throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await access()
        } catch {
            throw StoreError(operation: operation, error)
        }
    }
}

extension StoreError {
    /// Classifies an error thrown by GRDB or SQLite during `operation`.
    init(operation: String, _ error: any Error) {
        switch error {
        case let error as StoreError:
            self = error
        case is CancellationError:
            self = .cancelled(operation: operation)
        case let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT:
            self = .constraintViolated(operation: operation, reason: error.message ?? "\(error.extendedResultCode)")
        case let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT:
            self = .cancelled(operation: operation)
        case let error as DatabaseError:
            self = .database(operation: operation, reason: error.message ?? "\(error.extendedResultCode)")
        default:
            self = .database(operation: operation, reason: String(describing: error))
        }
    }
}
