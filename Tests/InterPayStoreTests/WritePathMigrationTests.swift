import Foundation
import GRDB
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger: migration v12, the write path", .tearsDown)
struct WritePathMigrationTests {
    @Test("v12 keeps a v11 ledger's rows and triggers, drops three indexes, and its CHECKs refuse what the lists did")
    func migratesAV11Ledger() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (queue, path) = try ledger(migratedUpTo: "v11-preferences", in: directory)
        let id = UUID().wireString
        let us = try Peers.us().description
        let bob = try Peers.bob().description
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO payment (id, role, peerID, payeeID, payerID, amountMinor, currency, memo, state,
                        confirmed, createdAt, expiresAt, updatedAt, paidMethod)
                    VALUES (?, 'payee', ?, ?, ?, 1250, 'MXN', 'tacos', 'paid', 1, 100, 1000, 200, 'card');
                    INSERT INTO paymentEvent (paymentID, at, fromState, toState, cause) VALUES (?, 100, NULL, 'pending', 'created');
                    INSERT INTO paymentEvent (paymentID, at, fromState, toState, cause) VALUES (?, 150, 'pending', 'accepted', 'peer');
                    INSERT INTO outbox (messageID, paymentID, peerID, frame, seq, createdAt) VALUES (?, ?, ?, x'7b7d', 1, 100);
                    """,
                arguments: [id, bob, us, bob, id, id, UUID().wireString, id, bob])
        }
        let triggersBefore = try await queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        }
        try queue.close()

        let database = try AppDatabase(path: path)
        #expect(try await database.appliedMigrations().contains("v12-write-path"))
        let paymentID = try #require(UUID(wireString: id))
        let record = try #require(try await database.payment(id: paymentID))
        #expect(record.state == .paid && record.paidMethod == .card && record.memo == "tacos")
        let (events, outbox, triggers, indexes, definitions) = try await database.reader.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM paymentEvent") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? -1,
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name"),
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"),
                try String.fetchAll(
                    db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('payment', 'paymentEvent')")
            )
        }
        #expect(events == 2 && outbox == 1)
        // v13 adds the triggers that keep the pending request counts.
        #expect(triggers.filter { !$0.hasPrefix("payment_pending_request_") } == triggersBefore)
        #expect(triggersBefore.count == 9)
        for dropped in ["payment_open_on_expiresAt", "outbox_on_paymentID", "seenMessage_on_paymentID"] {
            #expect(!indexes.contains(dropped), "\(dropped) is dropped")
        }
        for kept in [
            "payment_on_createdAt", "payment_pending_on_expiresAt", "paymentEvent_on_paymentID", "payment_on_series",
        ] {
            #expect(indexes.contains(kept), "\(kept) is rebuilt")
        }
        #expect(definitions.count == 2 && definitions.allSatisfy { !$0.contains(" IN (") })

        // The rules of the lists, as the lists had them: a value outside is refused, NULL where NULL was allowed is not.
        let peers = "'\(bob)', '\(us)', '\(bob)'"
        await expectConstraintViolation {
            try await execute(
                """
                INSERT INTO payment (id, role, peerID, payeeID, payerID, amountMinor, currency, memo, state, confirmed,
                    createdAt, expiresAt, updatedAt) VALUES ('\(UUID().wireString)', 'payee', \(peers), 1, 'MXN', '',
                    'pendingx', 1, 1, 2, 1)
                """, in: database)
        }
        await expectConstraintViolation {
            try await execute(
                """
                INSERT INTO payment (id, role, peerID, payeeID, payerID, amountMinor, currency, memo, state, confirmed,
                    createdAt, expiresAt, updatedAt) VALUES ('\(UUID().wireString)', 'boss', \(peers), 1, 'MXN', '',
                    'pending', 1, 1, 2, 1)
                """, in: database)
        }
        await expectConstraintViolation {
            try await execute("UPDATE payment SET paidMethod = 'cheque'", in: database)
        }
        await expectConstraintViolation {
            try await execute("UPDATE payment SET reasonCode = 'XXXX'", in: database)
        }
        try await execute("UPDATE payment SET reasonCode = 'AEXR'", in: database)
        await expectConstraintViolation {
            try await execute(
                "INSERT INTO paymentEvent (paymentID, at, toState, cause) VALUES ('\(id)', 1, 'paid', 'whim')",
                in: database)
        }
        await expectConstraintViolation {
            try await execute(
                "INSERT INTO paymentEvent (paymentID, at, fromState, toState, cause) VALUES ('\(id)', 1, 'gone', 'paid', 'local')",
                in: database)
        }
        try await execute(
            "INSERT INTO paymentEvent (paymentID, at, fromState, toState, cause) VALUES ('\(id)', 1, NULL, 'settled', 'local')",
            in: database)
    }
}
