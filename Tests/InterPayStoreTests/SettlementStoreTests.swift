import Foundation
import GRDB
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger: settlement and receipts", .tearsDown)
struct SettlementStoreTests {
    @Test("migration v9 keeps a v8 ledger's payments, events and outbox, and dates past acceptances")
    func migratesAnOldLedger() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (queue, path) = try ledger(migratedUpTo: "v8-static-pins", in: directory)
        let id = UUID().wireString
        let us = try Peers.us().description
        let bob = try Peers.bob().description
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO payment (id, role, peerID, payeeID, payerID, amountMinor, currency, memo, state,
                        confirmed, createdAt, expiresAt, updatedAt)
                    VALUES (?, 'payee', ?, ?, ?, 1250, 'MXN', 'tacos', 'accepted', 1, 100, 1000, 200);
                    INSERT INTO paymentEvent (paymentID, at, fromState, toState, cause) VALUES (?, 100, NULL, 'pending', 'created');
                    INSERT INTO paymentEvent (paymentID, at, fromState, toState, cause) VALUES (?, 150, 'pending', 'accepted', 'peer');
                    INSERT INTO outbox (messageID, paymentID, peerID, frame, seq, createdAt) VALUES (?, ?, ?, x'7b7d', 1, 100);
                    """,
                arguments: [id, bob, us, bob, id, id, UUID().wireString, id, bob])
        }
        try queue.close()

        let database = try AppDatabase(path: path)
        #expect(try await database.appliedMigrations().contains("v9-settlement"))
        let paymentID = try #require(UUID(uuidString: id))
        let record = try #require(try await database.payment(id: paymentID))
        #expect(record.state == .accepted && record.acceptedAt == Timestamp(secondsSince1970: 150))
        let counts = try await database.reader.read { db in
            [
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM paymentEvent") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'") ?? -1,
            ]
        }
        #expect(counts[0] == 2 && counts[1] == 1)
        #expect(
            counts[2] == 12, "the five old triggers are back, the two of v9, the two of v10 and the three of v13")
        // The rebuilt tables keep their rules: the log is append-only, settled stays settled.
        await expectConstraintViolation { try await execute("DELETE FROM paymentEvent", in: database) }
        try await execute("UPDATE payment SET state = 'settled'", in: database)
        await expectConstraintViolation { try await execute("UPDATE payment SET state = 'accepted'", in: database) }
        await expectConstraintViolation {
            try await execute(
                "INSERT INTO paymentEvent (paymentID, at, toState, cause) VALUES ('\(UUID().wireString)', 1, 'paid', 'local')",
                in: database)
        }
    }

    @Test("settlement columns round-trip; a stored receipt never changes; stats count settled ones apart")
    func settlementColumns() async throws {
        let database = try AppDatabase.inMemory()
        var record = try await storePayment(in: database, role: .payee, peer: try Peers.bob(), state: .accepted)
        var lifecycle = record.lifecycle
        _ = lifecycle.handle(.peerPaid(messageID: UUID()), now: at(10))
        record.update(from: lifecycle, now: at(10))
        record.paidMethod = .card
        record.paidReference = "slip 7"
        try await database.apply(
            LedgerChange(
                payment: record,
                events: [.init(paymentID: record.id, at: at(10), from: .accepted, to: .paid, cause: .peer)]))
        _ = lifecycle.handle(.localSettle(messageID: UUID(), receipt: nil), now: at(20))
        record.update(from: lifecycle, now: at(20))
        record.receipt = "{\"r\":\"1\"}"
        try await database.apply(
            LedgerChange(
                payment: record,
                events: [.init(paymentID: record.id, at: at(20), from: .paid, to: .settled, cause: .local)]))
        let stored = try #require(try await database.payment(id: record.id))
        #expect(stored.state == .settled && stored.paidMethod == .card && stored.paidReference == "slip 7")
        #expect(stored.paidAt == at(10) && stored.settledAt == at(20) && stored.receipt == "{\"r\":\"1\"}")
        await expectConstraintViolation { try await execute("UPDATE payment SET receipt = '{}'", in: database) }

        try await storePayment(in: database, role: .payee, peer: try Peers.bob(), state: .accepted, minorUnits: 100)
        let rows = try await database.stats(groupBy: .currency)
        #expect(rows.count == 1)
        #expect(rows.first?.count == 2 && rows.first?.settledCount == 1 && rows.first?.settledMinor == 1250)
    }
}
