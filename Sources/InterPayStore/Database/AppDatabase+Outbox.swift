public import Foundation
import GRDB
public import InterPayCore

extension AppDatabase {
    /// The frames waiting for `peerID`'s ack, in the order they must be resent (`seq`).
    public func outbox(peerID: PeerID) async throws(StoreError) -> [OutboxRecord] {
        try await read("read the outbox of \(peerID.shortDescription)") { db in
            try Ledger(db).outbox(peerID: peerID)
        }
    }

    /// The frame `messageID` waiting for `peerID`'s ack, if it is in the outbox.
    public func outboxRecord(messageID: UUID, peerID: PeerID) async throws(StoreError) -> OutboxRecord? {
        try await read("read outbox frame \(messageID.wireString)") { db in
            try Ledger(db).outboxRecord(messageID: messageID, peerID: peerID)
        }
    }

    /// The frames for `peerID` never handed to a session, in `seq` order.
    public func unsentOutbox(peerID: PeerID) async throws(StoreError) -> [OutboxRecord] {
        try await read("read the unsent outbox of \(peerID.shortDescription)") { db in
            try OutboxRecord
                .filter(OutboxRecord.Columns.peerID == peerID.description)
                .filter(OutboxRecord.Columns.lastSentAt == nil)
                .order(OutboxRecord.Columns.seq)
                .fetchAll(db)
        }
    }

    /// The peers that have frames waiting in the outbox (they are worth dialing), sorted by their text form.
    public func peersWithOutbox() async throws(StoreError) -> [PeerID] {
        let texts = try await read("list peers with queued frames") { db in
            try OutboxRecord
                .select(OutboxRecord.Columns.peerID, as: String.self)
                .distinct()
                .order(OutboxRecord.Columns.peerID)
                .fetchAll(db)
        }
        var peerIDs: [PeerID] = []
        for text in texts {
            do {
                peerIDs.append(try PeerID(parsing: text))
            } catch {
                throw .corruptRecord(table: OutboxRecord.databaseTableName, key: text, reason: error.description)
            }
        }
        return peerIDs
    }

    /// Records that these frames were handed to a session at `at`: one more attempt each. Unknown IDs are ignored.
    public func markSent(messageIDs: [UUID], at: Timestamp) async throws(StoreError) {
        guard !messageIDs.isEmpty else { return }
        try await write("mark \(messageIDs.count) frames as sent") { db in
            _ =
                try OutboxRecord
                .filter(messageIDs.map(\.wireString).contains(OutboxRecord.Columns.messageID))
                .updateAll(
                    db, OutboxRecord.Columns.attempts += 1,
                    OutboxRecord.Columns.lastSentAt.set(to: at.secondsSince1970))
        }
    }

    /// Ends the retransmission of frames whose `retryUntil` has passed (`retryUntil <= now`): deletes them and
    /// returns them, in `seq` order. Frames with no `retryUntil` stay until acknowledged.
    @discardableResult
    public func pruneOutbox(now: Timestamp) async throws(StoreError) -> [OutboxRecord] {
        try await write("prune the outbox") { db in
            try Ledger(db).pruneOutbox(now: now)
        }
    }
}
