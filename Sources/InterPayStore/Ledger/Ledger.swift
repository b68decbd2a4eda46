public import Foundation
import GRDB
public import InterPayCore

/// The ledger inside one transaction: what a protocol step reads and writes, synchronously, on GRDB's writer.
///
/// The payment engine runs each step as a closure given a `Ledger` (`AppDatabase.transact(_:)`): it reads what it
/// needs (the payment, the duplicate check, the limits, the outbox), decides with the pure `PaymentLifecycle`, and
/// writes with `apply(_:)`, all in one transaction, so no other step can interleave between the read and the write
/// (GRDB's `AppDatabase` pattern: read, decide, write in one `write {}`). The asynchronous queries of
/// `AppDatabase` with the same names run these same queries in a read transaction of their own.
public struct Ledger {
    let db: Database
    /// What the transaction's steps wrote so far that the metrics count; nil outside `transact`.
    let tally: LedgerTally?

    init(_ db: Database, tally: LedgerTally? = nil) {
        self.db = db
        self.tally = tally
    }

    // MARK: Payments

    /// The payment with this ID, if stored.
    public func payment(id: UUID) throws -> PaymentRecord? {
        // Cached statements on the hot path: each step runs a handful of these, and preparing (and authorizing) the
        // query interface's SQL again for every one cost more than running it.
        try PaymentRecord.fetchOneRow(
            db.cachedStatement(sql: Lookup.payment), arguments: [id.wireString])
    }

    /// How many refunds payment `id` carries and their sum in minor units of its currency (PROTOCOL.md §8.7).
    public func refundTotals(of id: UUID) throws -> RefundTotals {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT COUNT(*) AS count, COALESCE(SUM(amountMinor), 0) AS minor FROM payment WHERE refundOf = ?"),
            arguments: [id.wireString])
        return RefundTotals(count: row?["count"] ?? 0, minor: row?["minor"] ?? 0)
    }

    /// The pending payments whose `expiresAt` has come, soonest first (see `AppDatabase.duePayments(now:)`).
    public func duePayments(now: Timestamp) throws -> [PaymentRecord] {
        try PaymentRecord
            .filter(sql: "state = 'pending' AND expiresAt <= ?", arguments: [now.secondsSince1970])
            .order(PaymentRecord.Columns.expiresAt, PaymentRecord.Columns.id)
            .fetchAll(db)
    }

    /// How many of `peerID`'s requests to us are pending and not yet past expiry at `now`, at most `limit`.
    ///
    /// The count kept by the ledger's triggers (`pendingRequestCount`, schema v13) less those past expiry that are
    /// still pending: a lookup and a scan of the due ones, whatever the number pending.
    public func pendingIncomingCount(from peerID: PeerID, now: Timestamp, upTo limit: Int = .max) throws -> Int {
        let count =
            try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT COALESCE((SELECT count FROM pendingRequestCount WHERE peerID = ?1), 0)
                            - (SELECT COUNT(*) FROM payment INDEXED BY payment_pending_on_expiresAt
                                WHERE state = 'pending' AND expiresAt <= ?2 AND role = 'payer' AND peerID = ?1)
                        """),
                arguments: [peerID.description, now.secondsSince1970]) ?? 0
        return min(count, limit)
    }

    /// How many of `peerID`'s requests to us are past expiry at `now` but still pending: expired, and not yet marked so
    /// by the expiry check (`PaymentEngine.tick`).
    public func dueIncomingCount(from peerID: PeerID, now: Timestamp) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COUNT(*) FROM payment INDEXED BY payment_pending_on_expiresAt
                        WHERE state = 'pending' AND expiresAt <= ?2 AND role = 'payer' AND peerID = ?1
                    """),
            arguments: [peerID.description, now.secondsSince1970]) ?? 0
    }

    /// How many requests to us from peers that are not paired are pending and not yet past expiry at `now`, at most
    /// `limit`: the kept counts of the peers not paired less their due requests, as `pendingIncomingCount`.
    ///
    /// `INDEXED BY` (here and above) holds the due requests' scan to the index of exactly the pending ones by due
    /// time: the planner would otherwise take the peer's index and read all its payments, of any age and state.
    public func pendingIncomingCountFromUnpaired(now: Timestamp, upTo limit: Int = .max) throws -> Int {
        let count =
            try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT COALESCE(
                                (SELECT SUM(count) FROM pendingRequestCount
                                    WHERE peerID NOT IN (SELECT peerID FROM trustedPeer)), 0)
                            - (SELECT COUNT(*) FROM payment INDEXED BY payment_pending_on_expiresAt
                                WHERE state = 'pending' AND expiresAt <= ?1 AND role = 'payer'
                                    AND peerID NOT IN (SELECT peerID FROM trustedPeer))
                        """),
                arguments: [now.secondsSince1970]) ?? 0
        return min(count, limit)
    }

    /// The frame with this `messageID` from `peer` already processed, with the answer given, if any.
    public func seenMessage(id: UUID, from peer: PeerID) throws -> SeenMessageRecord? {
        try SeenMessageRecord.fetchOneRow(
            db.cachedStatement(sql: Lookup.seenMessage),
            arguments: [peer.description, id.wireString])
    }

    /// Whether `peerID` is paired.
    public func isPaired(_ peerID: PeerID) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM trustedPeer WHERE peerID = ?)"),
            arguments: [peerID.description]) ?? false
    }

    /// The name `peerID` last announced in its `hello` (whatever name it is shown under here).
    public func announcedName(_ peerID: PeerID) throws -> String? {
        try String.fetchOne(db, sql: "SELECT name FROM peer WHERE peerID = ?", arguments: [peerID.description])
    }

    /// The name this side knows `peerID` by: the name pinned when pairing, else the name it last announced.
    public func peerName(_ peerID: PeerID) throws -> String? {
        try String.fetchOne(
            db,
            sql: """
                SELECT COALESCE((SELECT name FROM trustedPeer WHERE peerID = ?), (SELECT name FROM peer WHERE peerID = ?))
                """,
            arguments: [peerID.description, peerID.description])
    }

    /// The `send` idempotency key `key`, if used in the last `SendKeyRecord.lifetime` seconds.
    public func sendKey(_ key: String, now: Timestamp) throws -> SendKeyRecord? {
        try SendKeyRecord
            .filter(SendKeyRecord.Columns.key == key)
            .filter(SendKeyRecord.Columns.createdAt > now.secondsSince1970 - SendKeyRecord.lifetime)
            .fetchOne(db)
    }

    // MARK: Outbox

    /// The frames waiting for `peerID`'s ack, in the order they must be resent (`seq`).
    public func outbox(peerID: PeerID) throws -> [OutboxRecord] {
        try OutboxRecord
            .filter(OutboxRecord.Columns.peerID == peerID.description)
            .order(OutboxRecord.Columns.seq)
            .fetchAll(db)
    }

    /// The frame `messageID` waiting for `peerID`'s ack, if it is in the outbox.
    public func outboxRecord(messageID: UUID, peerID: PeerID) throws -> OutboxRecord? {
        try OutboxRecord.fetchOneRow(
            db.cachedStatement(sql: Lookup.outboxRecord),
            arguments: [messageID.wireString, peerID.description])
    }

    /// Records that every frame waiting for `peerID` is handed to a session at `at`: one more attempt each.
    public func markOutboxSent(peerID: PeerID, at: Timestamp) throws {
        try OutboxRecord
            .filter(OutboxRecord.Columns.peerID == peerID.description)
            .updateAll(
                db, OutboxRecord.Columns.attempts += 1, OutboxRecord.Columns.lastSentAt.set(to: at.secondsSince1970))
    }

    /// Ends the retransmission of frames whose `retryUntil` has passed: deletes them and returns them, in `seq`
    /// order.
    public func pruneOutbox(now: Timestamp) throws -> [OutboxRecord] {
        let expired = OutboxRecord.filter(OutboxRecord.Columns.retryUntil <= now.secondsSince1970)
        let records = try expired.order(OutboxRecord.Columns.seq).fetchAll(db)
        try expired.deleteAll(db)
        return records
    }

    // MARK: Writing

    /// Writes one protocol step's change (see `LedgerChange`); returns the outbox records as stored, with their
    /// `seq` numbers.
    @discardableResult
    public func apply(_ change: LedgerChange) throws -> [OutboxRecord] {
        let stored = try AppDatabase.apply(change, in: db)
        if let tally, let role = change.payment?.role {
            for event in change.events where event.fromState != event.toState {
                tally.entered.append(PaymentStateEntry(role: role, state: event.toState))
            }
        }
        return stored
    }

    /// Inserts a peer or refreshes a known one (name, address when given, last seen).
    public func upsertPeer(_ peer: PeerRecord) throws {
        try AppDatabase.upsert(peer, in: db)
    }
}

/// The payment path's lookups by a unique key, made once (a cached statement is found by its SQL text).
private enum Lookup {
    static let payment = PaymentRecord.selectSQL + " WHERE id = ?"
    static let seenMessage = SeenMessageRecord.selectSQL + " WHERE peerID = ? AND messageID = ?"
    static let outboxRecord = OutboxRecord.selectSQL + " WHERE messageID = ? AND peerID = ?"
}

extension AppDatabase {
    /// Runs `steps` in one write transaction, in order, each in a savepoint of its own: a step that throws is rolled
    /// back alone and gets its error; the others see what the earlier ones wrote. One disk flush for the batch;
    /// returns once the transaction is durable (or failed, when every step gets the failure).
    ///
    /// It blocks the calling thread for the transaction and its disk flush (GRDB runs it on the caller's thread when
    /// its writer is free): call it from a thread that may block, such as the payment engine's step queue, never from
    /// an event loop or a task of the cooperative pool.
    ///
    /// `committed`, when given, is told after the commit the states payments entered in the transaction (nothing of
    /// a step that was rolled back): what the metrics count.
    public func transact<Outcome>(
        _ steps: [(Ledger) throws -> Outcome], committed: (([PaymentStateEntry]) -> Void)? = nil
    ) -> [Result<Outcome, StoreError>] {
        do {
            let tally = committed == nil ? nil : LedgerTally()
            let results = try writer.writeWithoutTransaction { db in
                try Self.immediateTransaction(db) { try Self.run(steps, in: Ledger(db, tally: tally)) }
            }
            if let committed, let tally { committed(tally.entered) }
            return results
        } catch {
            // The transaction itself failed (e.g. the disk): nothing of the batch is stored.
            return steps.map { _ in .failure(StoreError(operation: "run a ledger step", error)) }
        }
    }

    /// Runs `body` in an IMMEDIATE transaction with statements prepared once per connection, and commits; rolls back
    /// and throws the first error if `body` or the commit throws.
    ///
    /// GRDB's `write` begins and commits with `execute(sql:)`, which parses and authorizes `BEGIN` and `COMMIT`
    /// again for every transaction: the only statements a ledger transaction still prepared (two per commit, counted
    /// with uprobes on `sqlite3_prepare_v3`; every other statement of the path is cached). This is GRDB's
    /// own `Database.inTransaction` with the statements cached; GRDB tracks a transaction begun with SQL as its own
    /// (its observers see the commit through SQLite's hooks).
    private static func immediateTransaction<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let result = try body()
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            // GRDB's `rollback()` undoes nothing where SQLite rolled back by itself (an I/O error, a full disk).
            do {
                try db.rollback()
            } catch let rollbackError {
                throw StoreError(operation: "roll back a ledger transaction after \(error)", rollbackError)
            }
            throw error
        }
    }

    /// The steps of one transaction, each in a savepoint of its own unless it is alone.
    private static func run<Outcome>(
        _ steps: [(Ledger) throws -> Outcome], in ledger: Ledger
    ) throws -> [Result<Outcome, StoreError>] {
        let db = ledger.db
        if steps.count == 1 {
            // One step needs no savepoint: the transaction rolls back with it when it throws.
            return [.success(try steps[0](ledger))]
        }
        // Savepoints with statements prepared once per connection: GRDB's `inSavepoint` parses its SQL again
        // for every step, which cost as much as a step's writes.
        let begin = try db.cachedStatement(sql: "SAVEPOINT step")
        let release = try db.cachedStatement(sql: "RELEASE SAVEPOINT step")
        let rollback = try db.cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT step")
        var outcomes: [Result<Outcome, StoreError>] = []
        outcomes.reserveCapacity(steps.count)
        for step in steps {
            try begin.execute()
            let tallied = ledger.tally?.entered.count ?? 0
            do {
                let outcome = try step(ledger)
                try release.execute()
                outcomes.append(.success(outcome))
            } catch {
                // This step alone is undone; if even that fails, the batch's transaction is (thrown below).
                try rollback.execute()
                try release.execute()
                ledger.tally?.entered.removeSubrange(tallied...)
                outcomes.append(.failure(StoreError(operation: "run a ledger step", error)))
            }
        }
        return outcomes
    }
}

/// A state a payment entered in a committed transaction, with this side's role in it.
public struct PaymentStateEntry: Sendable, Hashable {
    /// This side's role in the payment.
    public var role: PaymentRole
    /// The state it entered (`pending` when it was created).
    public var state: PaymentState

    /// An entry of `role`'s payment into `state`.
    public init(role: PaymentRole, state: PaymentState) {
        self.role = role
        self.state = state
    }
}

/// What one transaction's steps wrote that the metrics count; confined to the transaction's thread.
final class LedgerTally {
    var entered: [PaymentStateEntry] = []
}
