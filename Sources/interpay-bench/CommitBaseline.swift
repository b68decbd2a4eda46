import Foundation
import GRDB
import InterPayStore

/// The storage half of the round trip's baseline: one small row committed to SQLite with the ledger's durability
/// settings (WAL, `synchronous = FULL`), so each commit waits for the disk. No schema, no checks, no encoding.
struct CommitBaseline {
    private let pool: DatabasePool
    private let body = Data(repeating: 0x78, count: 400)

    init(directory: URL) throws {
        // SQLite's process-wide settings as the ledger has them, whichever of the two opens SQLite first.
        AppDatabase.applySQLiteSettings()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        pool = try DatabasePool(path: directory.appending(path: "baseline.sqlite").path, configuration: configuration)
        // As in AppDatabase: DatabasePool lowers the writer to NORMAL when it enables WAL; set FULL again.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS row (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        }
    }

    /// Commits one row; returns the milliseconds it took.
    func commit() throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try pool.write { db in try db.execute(sql: "INSERT INTO row (body) VALUES (?)", arguments: [body]) }
        return (clock.now - start).milliseconds
    }
}
