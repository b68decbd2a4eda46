import Foundation
import GRDB
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger retention: what is pruned, what is kept, what is left behind", .tearsDown)
struct RetentionTests {
    static let day: Int64 = 86_400

    /// An incoming request from bob, stored as received (its event and its remembered answer), then moved to `state`
    /// at `changedAt` (raw SQL: the lifecycle is not what this tests).
    func incoming(
        _ database: AppDatabase, state: String, createdAt: Timestamp = at(), changedAt: Timestamp
    ) async throws -> UUID {
        let request = try makeRequest(payee: try Peers.bob(), payer: try Peers.us(), createdAt: createdAt)
        try await database.apply(try incomingRequestChange(request, now: createdAt))
        try await execute(
            "UPDATE payment SET state = '\(state)', updatedAt = \(changedAt.secondsSince1970) WHERE id = '\(request.id.wireString)'",
            in: database)
        return request.id
    }

    @Test("final payments outside the books go with their events and answers; the books and recent ones stay")
    func prunes() async throws {
        let database = try AppDatabase.inMemory()
        let expired = try await incoming(database, state: "expired", changedAt: at(900))
        let rejected = try await incoming(database, state: "rejected", changedAt: at(100))
        let accepted = try await incoming(database, state: "accepted", changedAt: at(100))
        let settled = try await incoming(database, state: "settled", changedAt: at(100))
        // Expired 9 days in: within the 7-day replay window of "now" (day 10), kept whatever the retention.
        let recent = try await incoming(
            database, state: "expired", createdAt: at(9 * Self.day), changedAt: at(9 * Self.day + 900))
        // An outgoing request, cancelled, whose cancel still waits in the outbox.
        let request = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await database.apply(try outgoingRequestChange(request, now: at()))
        try await execute(
            "UPDATE payment SET state = 'cancelled', updatedAt = \(at(50).secondsSince1970) WHERE id = '\(request.id.wireString)'",
            in: database)

        let before = try await database.size()
        #expect(before.payments == 6 && before.seenMessages == 5)
        let now = at(10 * Self.day)
        let summary = try await database.prune(changedBefore: now, now: now)
        #expect(summary.expired == 1 && summary.rejected == 1 && summary.cancelled == 0)
        #expect(summary.events == 2 && summary.seenMessages == 2)
        for id in [expired, rejected] {
            #expect(try await database.payment(id: id) == nil)
            #expect(try await database.events(paymentID: id).isEmpty)
        }
        for id in [accepted, settled, recent, request.id] {
            #expect(try await database.payment(id: id) != nil)
        }
        let after = try await database.size()
        #expect(after.payments == 4 && after.seenMessages == 3 && after.pruned == 2)
        // The summary row says what went.
        let row = try database.reader.read { db in
            try Row.fetchOne(db, sql: "SELECT rejected, cancelled, expired, events, oldest, newest FROM ledgerPrune")
        }
        let counts: [Int] = ["rejected", "cancelled", "expired", "events"].map { row?[$0] ?? -1 }
        #expect(counts == [1, 0, 1, 2])
        let oldest: Int64? = row?["oldest"]
        let newest: Int64? = row?["newest"]
        #expect(oldest == at(100).secondsSince1970 && newest == at(900).secondsSince1970)
        // A second pass finds nothing more.
        #expect(try await database.prune(changedBefore: now, now: now).payments == 0)
    }

    @Test("the event log of the books stays append-only; only a pruned payment's events may be deleted")
    func booksStayAppendOnly() async throws {
        let database = try AppDatabase.inMemory()
        let accepted = try await incoming(database, state: "accepted", changedAt: at(100))
        let reason = await expectConstraintViolation {
            try await execute("DELETE FROM paymentEvent WHERE paymentID = '\(accepted.wireString)'", in: database)
        }
        #expect(reason?.contains("append-only") == true)
        #expect(try await database.events(paymentID: accepted).count == 1)
    }

    @Test("a retention pass that is not yet due removes nothing")
    func notYet() async throws {
        let database = try AppDatabase.inMemory()
        _ = try await incoming(database, state: "rejected", changedAt: at(100))
        // Changed at 100 s; the cutoff is before that.
        #expect(try await database.prune(changedBefore: at(50), now: at(30 * Self.day)).payments == 0)
    }

    @Test("a ledger file runs with incremental vacuum, and pruning gives its pages back")
    func vacuum() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try AppDatabase(path: directory.path("ledger.sqlite"))
        let mode = try await database.reader.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") }
        #expect(mode == 2)
        for index in 0..<300 {
            _ = try await incoming(database, state: "expired", changedAt: at(900 + Int64(index)))
        }
        let full = try await database.size()
        let summary = try await database.prune(changedBefore: at(20 * Self.day), now: at(20 * Self.day))
        #expect(summary.expired == 300)
        let pruned = try await database.size()
        #expect(pruned.bytes < full.bytes, "\(pruned.bytes) bytes after, \(full.bytes) before")
        #expect(pruned.freeBytes == 0)
    }

    @Test("peers never paired with nothing left in the ledger are forgotten; paired ones and ones with payments stay")
    func forgetsPeers() async throws {
        let database = try AppDatabase.inMemory()
        let stranger = try PeerID(bytes: Array(repeating: 9, count: 32))
        let friend = try PeerID(bytes: Array(repeating: 8, count: 32))
        for peer in [stranger, friend] {
            try await database.apply(
                LedgerChange(peer: PeerRecord(peerID: peer, name: "x", address: nil, seenAt: at())))
        }
        try await database.trust(TrustedPeerRecord(peerID: friend, name: "friend", pairedAt: at()))
        // bob (incomingRequestChange's payee) has an accepted payment: part of the books, kept with its peer.
        _ = try await incoming(database, state: "accepted", changedAt: at(100))
        let now = at(100 * Self.day)
        let summary = try await database.prune(changedBefore: now, now: now)
        #expect(summary.peers == 1)
        let left = try await database.reader.read { db in
            try String.fetchAll(db, sql: "SELECT peerID FROM peer ORDER BY peerID")
        }
        #expect(left.sorted() == [friend.description, try Peers.bob().description].sorted())
        // Seen after the cutoff: kept.
        try await database.apply(
            LedgerChange(peer: PeerRecord(peerID: stranger, name: "x", address: nil, seenAt: at(100 * Self.day))))
        #expect(try await database.prune(changedBefore: now, now: now).peers == 0)
    }
}
