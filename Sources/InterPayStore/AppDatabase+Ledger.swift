import Foundation
import GRDB
import InterPayCore

extension AppDatabase {
    /// Commits one protocol step atomically: peer, payment, events, new outbox frames, removed outbox frames and the
    /// seen message, in that order. If any part breaks a rule of the schema nothing of it is stored and
    /// `StoreError.constraintViolated` is thrown.
    ///
    /// Steps committed at the same time share one transaction and one disk flush (`GroupCommit`); each is applied in
    /// its own savepoint, so it succeeds or fails alone, and returns only once the transaction is durable.
    ///
    /// - Returns: the outbox records as stored, with their `seq` numbers (increasing in the order given).
    @discardableResult
    public func apply(_ change: LedgerChange) async throws(StoreError) -> [OutboxRecord] {
        try await ledgerCommits.commit(change).get()
    }

    /// Writes a batch of changes in one transaction, each in a savepoint; one outcome per change.
    static func apply(
        _ changes: [LedgerChange], to writer: any DatabaseWriter
    ) async -> [Result<[OutboxRecord], StoreError>] {
        do {
            return try await writer.write { db in
                changes.map { change in
                    do {
                        var queued: [OutboxRecord] = []
                        try db.inSavepoint {
                            queued = try apply(change, in: db)
                            return .commit
                        }
                        return .success(queued)
                    } catch {
                        return .failure(StoreError(operation: "apply a ledger change", error))
                    }
                }
            }
        } catch {
            // The transaction itself failed (e.g. the disk): nothing of the batch is stored.
            return changes.map { _ in .failure(StoreError(operation: "apply a ledger change", error)) }
        }
    }

    static func apply(_ change: LedgerChange, in db: Database) throws -> [OutboxRecord] {
        if let peer = change.peer {
            try Self.upsert(peer, in: db)
        }
        if let payment = change.payment {
            if try payment.exists(db) {
                try payment.update(db, columns: PaymentRecord.mutableColumns)
            } else {
                try payment.insert(db)
            }
        }
        for event in change.events {
            try event.insert(db)
        }
        var queued: [OutboxRecord] = []
        if !change.outbox.isEmpty {
            var seq = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM outbox") ?? 0
            for var record in change.outbox {
                seq += 1
                record.seq = seq
                try record.insert(db)
                queued.append(record)
            }
        }
        if !change.removeFromOutbox.isEmpty {
            try OutboxRecord
                .filter(change.removeFromOutbox.map(\.wireString).contains(OutboxRecord.Columns.messageID))
                .deleteAll(db)
        }
        if let seen = change.seenMessage {
            try seen.insert(db)
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
    }
}
