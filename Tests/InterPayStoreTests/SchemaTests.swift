import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger schema: migrations, constraints, durability settings", .tearsDown)
struct SchemaTests {
    /// Every migration, in the order they run.
    static let migrations = [
        "v1", "v2-rates", "v3-payment-quotes", "v4-trusted-peers", "v5-pairing-lockouts", "v6-due-payments",
        "v7-send-keys", "v8-static-pins", "v9-settlement", "v10-subscriptions", "v11-preferences",
        "v12-write-path", "v13-pending-request-counts", "v14-series-approval-totals", "v15-retention",
        "v16-paired-names",
        "v17-refunds",
        "v18-bills",
    ]

    @Test("migrations run on a fresh file, and again on the same file without change")
    func migrationsAreIdempotent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("ledger.sqlite")

        let first = try AppDatabase(path: path)
        #expect(try await first.appliedMigrations() == Self.migrations)
        let request = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await first.apply(try outgoingRequestChange(request, now: at()))

        // A second open of the same file (also while the first is open) finds nothing left to migrate.
        let second = try AppDatabase(path: path)
        #expect(try await second.appliedMigrations() == Self.migrations)
        #expect(try await second.payment(id: request.id) != nil)

        let tables = try await second.reader.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        }
        #expect(
            tables == [
                "bill", "grdb_migrations", "ledgerPrune", "outbox", "pairingLockout", "payment", "paymentEvent", "peer",
                "pendingRequestCount", "preference", "rateSnapshot",
                "seenMessage", "sendKey", "series", "staticPin", "trustedPeer",
            ])
    }

    @Test("the in-memory database is migrated too")
    func inMemoryIsMigrated() async throws {
        let database = try AppDatabase.inMemory()
        #expect(try await database.appliedMigrations() == Self.migrations)
    }

    @Test("a missing directory is reported with the path, not a crash")
    func missingDirectory() throws {
        let path = "/nonexistent-\(UUID().uuidString)/ledger.sqlite"
        #expect {
            _ = try AppDatabase(path: path)
        } throws: { error in
            guard case .cannotOpen(let reportedPath, _) = error as? StoreError else { return false }
            return reportedPath == path
        }
    }

    /// A valid `payment` row as SQL literals, column by column.
    static func paymentColumns() throws -> [(String, String)] {
        [
            ("id", "'6be2017a-666d-4920-9eb1-81b0ef6a6207'"), ("role", "'payee'"),
            ("peerID", "'\(try Peers.bob())'"), ("payeeID", "'\(try Peers.us())'"), ("payerID", "'\(try Peers.bob())'"),
            ("amountMinor", "1250"), ("currency", "'MXN'"), ("memo", "'tacos'"), ("category", "NULL"),
            ("state", "'pending'"), ("confirmed", "1"), ("reason", "NULL"), ("reasonCode", "NULL"),
            ("createdAt", "\(baseTime)"), ("expiresAt", "\(baseTime + 900)"), ("updatedAt", "\(baseTime)"),
        ]
    }

    /// An INSERT of the valid row with some columns replaced.
    static func insertPayment(_ overrides: [String: String]) throws -> String {
        let columns = try paymentColumns()
        let names = columns.map(\.0).joined(separator: ", ")
        let values = columns.map { overrides[$0.0] ?? $0.1 }.joined(separator: ", ")
        return "INSERT INTO payment (\(names)) VALUES (\(values))"
    }

    @Test("the valid baseline row is accepted")
    func baselineRow() async throws {
        let database = try AppDatabase.inMemory()
        try await execute(try Self.insertPayment([:]), in: database)
        #expect(try await database.payments().count == 1)
    }

    @Test(
        "schema constraints reject bad payments with an error",
        arguments: [
            ("amount zero", ["amountMinor": "0"]),
            ("negative amount", ["amountMinor": "-5"]),
            ("fractional amount", ["amountMinor": "12.5"]),
            ("unknown state", ["state": "'refunded'"]),
            ("expiresAt equal to createdAt", ["expiresAt": "\(baseTime)"]),
            ("expiresAt before createdAt", ["expiresAt": "\(baseTime - 1)"]),
            ("unknown role", ["role": "'broker'"]),
            ("currency of 4 letters", ["currency": "'MXNN'"]),
            ("lower-case currency", ["currency": "'mxn'"]),
            ("upper-case payment ID", ["id": "'6BE2017A-666D-4920-9EB1-81B0EF6A6207'"]),
            ("short payment ID", ["id": "'6be2017a'"]),
            ("unknown reason code", ["reasonCode": "'NOPE'"]),
            ("unconfirmed payee", ["confirmed": "0"]),
            ("peer is not the other side", ["peerID": "'\((try? Peers.carol())?.description ?? "")'"]),
            ("payee equals payer", ["payerID": "'\((try? Peers.us())?.description ?? "")'"]),
            ("missing memo", ["memo": "NULL"]),
            ("empty category", ["category": "''"]),
            ("missing createdAt", ["createdAt": "NULL"]),
        ])
    func rejectsBadPayments(name: String, overrides: [String: String]) async throws {
        let database = try AppDatabase.inMemory()
        let sql = try Self.insertPayment(overrides)
        await expectConstraintViolation { try await execute(sql, in: database) }
        #expect(try await database.payments().isEmpty, "\(name)")
    }

    @Test("a bad record through the typed API fails with an error too (amount 0)")
    func rejectsBadRecord() async throws {
        let database = try AppDatabase.inMemory()
        var record = PaymentRecord(
            request: try makeRequest(payee: try Peers.us(), payer: try Peers.bob()), role: .payee, state: .pending,
            confirmed: true, now: at())
        record.amountMinor = 0
        let reason = await expectConstraintViolation { try await database.apply(LedgerChange(payment: record)) }
        #expect(reason?.contains("amountMinor") == true)
        record.amountMinor = 1
        record.expiresAt = record.createdAt
        await expectConstraintViolation { try await database.apply(LedgerChange(payment: record)) }
    }

    @Test("the event log refuses UPDATE and DELETE")
    func eventLogIsAppendOnly() async throws {
        let database = try AppDatabase.inMemory()
        let request = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await database.apply(try outgoingRequestChange(request, now: at()))
        #expect(try await database.events(paymentID: request.id).count == 1)

        let update = await expectConstraintViolation {
            try await execute("UPDATE paymentEvent SET toState = 'accepted'", in: database)
        }
        #expect(update?.contains("append-only") == true)
        let delete = await expectConstraintViolation {
            try await execute("DELETE FROM paymentEvent", in: database)
        }
        #expect(delete?.contains("append-only") == true)
        // The event and the payment it protects are unchanged.
        let events = try await database.events(paymentID: request.id)
        #expect(events.map(\.toState) == [.pending])
        await expectConstraintViolation { try await execute("DELETE FROM payment", in: database) }
        #expect(try await database.payment(id: request.id) != nil)
    }

    @Test("the terms of a payment never change, and a final payment never becomes pending again")
    func paymentTriggers() async throws {
        let database = try AppDatabase.inMemory()
        try await execute(try Self.insertPayment([:]), in: database)
        await expectConstraintViolation { try await execute("UPDATE payment SET amountMinor = 1", in: database) }
        await expectConstraintViolation { try await execute("UPDATE payment SET memo = 'other'", in: database) }
        await expectConstraintViolation { try await execute("UPDATE payment SET category = 'x'", in: database) }
        try await execute("UPDATE payment SET state = 'cancelled'", in: database)
        await expectConstraintViolation { try await execute("UPDATE payment SET state = 'pending'", in: database) }
        #expect(try await database.payments().map(\.state) == [.cancelled])
    }

    @Test("events, outbox frames and unknown enumerations are checked too")
    func otherTables() async throws {
        let database = try AppDatabase.inMemory()
        let request = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await database.apply(try outgoingRequestChange(request, now: at()))
        let id = request.id.wireString
        // An event for an unknown payment, with an unknown cause, with an unknown state.
        await expectConstraintViolation {
            try await execute(
                "INSERT INTO paymentEvent (paymentID, at, toState, cause) VALUES ('\(UUID().wireString)', 1, 'pending', 'local')",
                in: database)
        }
        await expectConstraintViolation {
            try await execute(
                "INSERT INTO paymentEvent (paymentID, at, toState, cause) VALUES ('\(id)', 1, 'pending', 'magic')",
                in: database)
        }
        await expectConstraintViolation {
            try await execute(
                "INSERT INTO paymentEvent (paymentID, at, toState, cause) VALUES ('\(id)', 1, 'refunded', 'local')",
                in: database)
        }
        // The same seq twice.
        let bob = try Peers.bob()
        var duplicate = OutboxRecord(
            messageID: UUID(), paymentID: request.id, peerID: bob, frame: Data("{}".utf8), createdAt: at(),
            retryUntil: nil)
        duplicate.seq = 1
        await expectConstraintViolation {
            try await database.write("insert") { [duplicate] db in try duplicate.insert(db) }
        }
    }

    @Test("the file database runs in WAL mode with synchronous = FULL and foreign keys on, on every connection")
    func pragmas() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try AppDatabase(path: directory.path("ledger.sqlite"))
        let writer = try await database.write("pragmas") { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys")
            )
        }
        #expect(writer.0 == "wal")
        #expect(writer.1 == 2, "synchronous on the writer: 2 is FULL")
        #expect(writer.2 == 1)
        let reader = try await database.read("pragmas") { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys")
            )
        }
        #expect(reader.0 == "wal")
        #expect(reader.1 == 2, "synchronous on a reader: 2 is FULL")
        #expect(reader.2 == 1)
    }

    @Test("the database file (and its WAL) is readable by its owner only")
    func fileMode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("ledger.sqlite")
        let database = try AppDatabase(path: path)
        try await database.apply(
            try outgoingRequestChange(try makeRequest(payee: try Peers.us(), payer: try Peers.bob()), now: at()))
        for file in [path, path + "-wal", path + "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test("an existing file with a wider mode is narrowed to 0600 when opened")
    func existingFileIsNarrowed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("ledger.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        _ = try AppDatabase(path: path)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }
}

@Suite("Preferences set at run time", .tearsDown)
struct PreferenceTests {
    @Test("a preference is stored, replaced, read at start-up and removed; bad values are refused")
    func roundTrip() async throws {
        let database = try AppDatabase.inMemory()
        #expect(try await database.preference(.preferredCurrency) == nil)
        try await database.setPreference(.preferredCurrency, to: "MXN")
        try await database.setPreference(.preferredCurrency, to: "EUR")
        #expect(try await database.preference(.preferredCurrency) == "EUR")
        #expect(try database.preferenceAtStartup(.preferredCurrency) == "EUR")
        await #expect(throws: StoreError.self) { try await database.setPreference(.preferredCurrency, to: "") }
        try await database.setPreference(.preferredCurrency, to: nil)
        #expect(try await database.preference(.preferredCurrency) == nil)
    }
}
