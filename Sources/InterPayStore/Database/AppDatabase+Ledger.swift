import Foundation
import GRDB
import InterPayCore

extension AppDatabase {
    /// Commits one protocol step atomically: peer, payment, events, new outbox frames, removed outbox frames and the
    /// seen message, in that order. If any part breaks a rule of the schema nothing of it is stored and
    /// `StoreError.constraintViolated` is thrown. (The engine writes its steps with `transact(_:)` instead, which
    /// reads and decides in the same transaction; this is the same write on its own.)
    ///
    /// - Returns: the outbox records as stored, with their `seq` numbers (increasing in the order given).
    @discardableResult
    public func apply(_ change: LedgerChange) async throws(StoreError) -> [OutboxRecord] {
        try await write("apply a ledger change") { db in try Self.apply(change, in: db) }
    }

    static func apply(_ change: LedgerChange, in db: Database) throws -> [OutboxRecord] {
        if let peer = change.peer {
            try Self.upsert(peer, in: db)
        }
        if let series = change.series {
            // Before the payment: a period's payment and its series' progress are one change.
            try series.save(db)
        }
        if let payment = change.payment {
            if change.paymentIsNew {
                try payment.insertRow(db)
            } else {
                try payment.upsertRow(db)
            }
        }
        for event in change.events {
            try event.insertRow(db)
        }
        var queued: [OutboxRecord] = []
        if !change.outbox.isEmpty {
            var seq = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(seq) FROM outbox")) ?? 0
            for var record in change.outbox {
                seq += 1
                record.seq = seq
                try record.insertRow(db)
                queued.append(record)
            }
        }
        for messageID in change.removeFromOutbox {
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE messageID = ?").execute(arguments: [
                messageID.wireString
            ])
        }
        if let seen = change.seenMessage {
            try seen.insertRow(db)
        }
        if let key = change.sendKey {
            try SendKeyRecord
                .filter(SendKeyRecord.Columns.createdAt <= key.createdAt.secondsSince1970 - SendKeyRecord.lifetime)
                .deleteAll(db)
            try key.insert(db)
        }
        return queued
    }

    /// Inserts a peer, or refreshes a known one: name, address (when given) and last seen; `firstSeen` stays.
    static func upsert(_ peer: PeerRecord, in db: Database) throws {
        // Only a new row can take the peers past the bound: a known peer's session events skip the count, which
        // reads the whole table once more than 1,024 peers have payments.
        let known = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM peer WHERE peerID = ?)", arguments: [peer.peerID.description])
        let isNew = known != true
        try db.execute(
            sql: """
                INSERT INTO peer (peerID, name, address, firstSeen, lastSeen) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (peerID) DO UPDATE SET
                    name = excluded.name,
                    address = coalesce(excluded.address, peer.address),
                    lastSeen = max(peer.lastSeen, excluded.lastSeen)
                """,
            arguments: [
                peer.peerID.description, peer.name, peer.address, peer.firstSeen.secondsSince1970,
                peer.lastSeen.secondsSince1970,
            ])
        if isNew { try forgetBarePeers(sparing: peer.peerID, in: db) }
    }

    /// How many peers seen are remembered at most beyond those with a payment, a series or a pairing.
    static let maxBarePeers = 1_024

    /// Beyond `maxBarePeers`, forgets the peers seen longest ago that have no payment, series or pairing here, down
    /// to three quarters of the bound (so the next pruning is a quarter of the bound of new keys away): keys cost
    /// nothing, and each one that held a session once left its row for good.
    static func forgetBarePeers(sparing current: PeerID, in db: Database) throws {
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM peer") ?? 0
        guard total > maxBarePeers else { return }
        let bare = """
            SELECT peerID FROM peer
            WHERE peerID <> ?
                AND NOT EXISTS (SELECT 1 FROM trustedPeer WHERE trustedPeer.peerID = peer.peerID)
                AND NOT EXISTS (SELECT 1 FROM payment WHERE payment.peerID = peer.peerID)
                AND NOT EXISTS (SELECT 1 FROM series WHERE series.peerID = peer.peerID)
            """
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(bare))", arguments: [current.description]) ?? 0
        guard count > maxBarePeers else { return }
        try db.execute(
            sql: "DELETE FROM peer WHERE peerID IN (\(bare) ORDER BY lastSeen, peerID LIMIT ?)",
            arguments: [current.description, count - maxBarePeers * 3 / 4])
    }
}
