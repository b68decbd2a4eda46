import GRDB
public import InterPayCore

/// What one pruning removed (`AppDatabase.prune`), as its `ledgerPrune` row records it.
public struct PruneSummary: Sendable, Equatable {
    /// Payments removed, by their final state.
    public var rejected = 0
    /// Payments removed that were cancelled.
    public var cancelled = 0
    /// Payments removed that had expired.
    public var expired = 0
    /// Their events.
    public var events = 0
    /// The answers remembered for their frames.
    public var seenMessages = 0
    /// Peers forgotten: never paired, nothing left of them in the ledger, not seen since the cutoff.
    public var peers = 0
    /// Pages given back to the file system afterwards.
    public var freedPages = 0

    /// Payments removed in all.
    public var payments: Int { rejected + cancelled + expired }

    /// Nothing removed.
    public init() {}
}

/// How big the ledger is (`interpay status`).
public struct LedgerSize: Sendable, Equatable {
    /// The database file's size in bytes (pages in use and free), without its write-ahead log.
    public var bytes: Int64
    /// Bytes of free pages inside the file, given back by the next incremental vacuum.
    public var freeBytes: Int64
    /// Payments.
    public var payments: Int
    /// Payment events.
    public var events: Int
    /// Frames waiting for an ack.
    public var outbox: Int
    /// Answers remembered for incoming frames.
    public var seenMessages: Int
    /// Peers seen.
    public var peers: Int
    /// Payments removed by retention so far, in all.
    public var pruned: Int
}

extension AppDatabase {
    /// Final states that are not part of the books: what retention may remove.
    static let prunableStates = ["rejected", "cancelled", "expired"]

    /// A payment's frames may be replayed for 7 days after it expires (PROTOCOL.md §9.2): until then it is kept, so
    /// that a replayed request is recognised, whatever the retention.
    public static let replayWindowSeconds: Int64 = 7 * 86_400

    /// Removes the payments that are final and not part of the books (rejected, cancelled, expired; not a payer's
    /// unconfirmed state, not a series' period, nothing left in the outbox) whose last change is before
    /// `changedBefore` and whose expiry is more than the replay window before `now`, with their events, send keys and
    /// remembered answers, in batches of `batch` payments, each batch one transaction that also adds its summary row
    /// to `ledgerPrune`. Then gives the freed pages back (`PRAGMA incremental_vacuum`). Accepted, paid and settled
    /// payments and their receipts are never removed: they are the books.
    public func prune(
        changedBefore: Timestamp, now: Timestamp, batch: Int = 500
    ) async throws(StoreError)
        -> PruneSummary
    {
        var total = PruneSummary()
        let latestExpiry = now.secondsSince1970 - Self.replayWindowSeconds
        while true {
            let step = try await write("prune the ledger") { db -> PruneSummary in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, state, updatedAt FROM payment
                        WHERE state IN ('rejected', 'cancelled', 'expired') AND updatedAt < ? AND expiresAt < ?
                            AND confirmed = 1 AND seriesID IS NULL
                            AND NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.paymentID = payment.id)
                        ORDER BY updatedAt LIMIT ?
                        """,
                    arguments: [changedBefore.secondsSince1970, latestExpiry, batch])
                var summary = PruneSummary()
                guard !rows.isEmpty else { return summary }
                let ids: [String] = rows.map { $0["id"] }
                for row in rows {
                    switch row["state"] as String {
                    case "rejected": summary.rejected += 1
                    case "cancelled": summary.cancelled += 1
                    default: summary.expired += 1
                    }
                }
                let list = databaseQuestionMarks(count: ids.count)
                let arguments = StatementArguments(ids)
                try db.execute(sql: "DELETE FROM paymentEvent WHERE paymentID IN (\(list))", arguments: arguments)
                summary.events = db.changesCount
                try db.execute(sql: "DELETE FROM seenMessage WHERE paymentID IN (\(list))", arguments: arguments)
                summary.seenMessages = db.changesCount
                try db.execute(sql: "DELETE FROM payment WHERE id IN (\(list))", arguments: arguments)
                let times: [Int64] = rows.map { $0["updatedAt"] }
                try db.execute(
                    sql: """
                        INSERT INTO ledgerPrune
                            (at, changedBefore, rejected, cancelled, expired, events, seenMessages, oldest, newest)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        now.secondsSince1970, changedBefore.secondsSince1970, summary.rejected, summary.cancelled,
                        summary.expired, summary.events, summary.seenMessages, times.min(), times.max(),
                    ])
                return summary
            }
            total.rejected += step.rejected
            total.cancelled += step.cancelled
            total.expired += step.expired
            total.events += step.events
            total.seenMessages += step.seenMessages
            if step.payments < batch { break }
        }
        total.peers = try await forgetPeers(seenBefore: changedBefore, now: now)
        if total.payments > 0 || total.peers > 0 { total.freedPages = try await vacuumIncrementally() }
        return total
    }

    /// Forgets the peers last seen before `seenBefore` that were never paired and of which nothing is left: no
    /// payment, series, frame waiting for them or answer remembered for them, no pairing lockout and no static pin.
    /// A fresh key costs nothing, and each one that ever held a session left its row for good; `interpay peers`
    /// listed them all. Recorded in a `ledgerPrune` row of its own when there were any.
    private func forgetPeers(seenBefore: Timestamp, now: Timestamp) async throws(StoreError) -> Int {
        try await write("forget old peers") { db in
            try db.execute(
                sql: """
                    DELETE FROM peer WHERE lastSeen < ?
                        AND peerID NOT IN (SELECT peerID FROM payment)
                        AND peerID NOT IN (SELECT peerID FROM series)
                        AND peerID NOT IN (SELECT peerID FROM outbox)
                        AND peerID NOT IN (SELECT peerID FROM seenMessage)
                        AND peerID NOT IN (SELECT peerID FROM trustedPeer)
                        AND peerID NOT IN (SELECT peerID FROM pairingLockout)
                        AND peerID NOT IN (SELECT peerID FROM staticPin)
                    """,
                arguments: [seenBefore.secondsSince1970])
            let forgotten = db.changesCount
            if forgotten > 0 {
                try db.execute(
                    sql: """
                        INSERT INTO ledgerPrune
                            (at, changedBefore, rejected, cancelled, expired, events, seenMessages, peers)
                        VALUES (?, ?, 0, 0, 0, 0, 0, ?)
                        """,
                    arguments: [now.secondsSince1970, seenBefore.secondsSince1970, forgotten])
            }
            return forgotten
        }
    }

    /// Gives the file's free pages back to the file system (the ledger runs with `auto_vacuum = INCREMENTAL`);
    /// returns how many there were.
    @discardableResult
    public func vacuumIncrementally() async throws(StoreError) -> Int {
        try await mappingFailure(to: "vacuum the ledger") {
            try await writer.writeWithoutTransaction { db in
                let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                if free > 0 { try db.execute(sql: "PRAGMA incremental_vacuum") }
                return free
            }
        }
    }

    /// The ledger's size and row counts.
    public func size() async throws(StoreError) -> LedgerSize {
        try await read("measure the ledger") { db in
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            func count(_ table: String) throws -> Int {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            return LedgerSize(
                bytes: pageSize * pages, freeBytes: pageSize * free, payments: try count("payment"),
                events: try count("paymentEvent"), outbox: try count("outbox"),
                seenMessages: try count("seenMessage"), peers: try count("peer"),
                pruned: try Int.fetchOne(
                    db, sql: "SELECT COALESCE(SUM(rejected + cancelled + expired), 0) FROM ledgerPrune") ?? 0)
        }
    }
}
