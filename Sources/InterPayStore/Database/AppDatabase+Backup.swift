import GRDB

extension AppDatabase {
    /// Copies the ledger, as one consistent snapshot, into a new database file at `path` with SQLite's online backup
    /// (GRDB's `Database.backup(to:)`), while steps keep committing; returns how many payments the copy holds.
    ///
    /// The copy is read from one read transaction, so it is the ledger as of one commit: a payment, its events and
    /// its outbox frames are in it together or not at all. The file must not exist.
    public func backup(toPath path: String) async throws(StoreError) -> Int {
        let destination: DatabaseQueue
        do {
            destination = try DatabaseQueue(path: path)
        } catch {
            throw StoreError(operation: "create the backup's ledger", error)
        }
        return try await read("copy the ledger") { db in
            try destination.inDatabase { copy in try db.backup(to: copy) }
            return try destination.read { copy in try Int.fetchOne(copy, sql: "SELECT COUNT(*) FROM payment") ?? 0 }
        }
    }

    /// SQLite's `integrity_check` of the ledger: nil when it is sound, else what it found.
    public func integrityProblem() async throws(StoreError) -> String? {
        try await read("check the ledger's integrity") { db in
            let result = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return result == ["ok"] ? nil : result.joined(separator: "; ")
        }
    }
}
