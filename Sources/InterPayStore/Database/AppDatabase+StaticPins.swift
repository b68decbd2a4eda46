import GRDB
public import InterPayCore

extension AppDatabase {
    /// The key pinned at a static peer's address (`HOST:PORT`), if any.
    public func staticPin(address: String) async throws(StoreError) -> PeerID? {
        try await read("read the pin of \(address)") { db in try Self.staticPin(address: address, in: db) }
    }

    /// The key pinned at `address`, read inside a transaction of the caller's.
    static func staticPin(address: String, in db: Database) throws -> PeerID? {
        guard
            let text = try String.fetchOne(
                db, sql: "SELECT peerID FROM staticPin WHERE address = ?", arguments: [address])
        else { return nil }
        return try PeerID(parsing: text)
    }

    /// Pins `peerID` at a static peer's address, unless a key is pinned there already; true if this pinned it.
    @discardableResult
    public func pinStatic(address: String, to peerID: PeerID, at now: Timestamp) async throws(StoreError) -> Bool {
        try await write("pin \(address)") { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO staticPin (address, peerID, pinnedAt) VALUES (?, ?, ?)",
                arguments: [address, peerID.description, now.secondsSince1970])
            return db.changesCount > 0
        }
    }

    /// Forgets every pin of `peerID`; the addresses that had it.
    public func unpinStatic(_ peerID: PeerID) async throws(StoreError) -> [String] {
        try await write("unpin \(peerID.shortDescription)") { db in
            let addresses = try String.fetchAll(
                db, sql: "SELECT address FROM staticPin WHERE peerID = ?", arguments: [peerID.description])
            try db.execute(sql: "DELETE FROM staticPin WHERE peerID = ?", arguments: [peerID.description])
            return addresses
        }
    }
}
