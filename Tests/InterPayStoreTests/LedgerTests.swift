import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger changes: atomic commits, durability, records", .tearsDown)
struct LedgerTests {
    @Test("apply() is atomic: a change whose last part breaks a constraint leaves nothing of its first parts")
    func applyIsAtomic() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        // A seen message that is already stored: inserting it again is the last step of the change and fails.
        let seen = SeenMessageRecord(
            messageID: UUID(), peerID: bob, paymentID: nil, receivedAt: at(), response: Data(#"{"type":"ack"}"#.utf8))
        try await database.apply(LedgerChange(seenMessage: seen))

        let request = try makeRequest(payee: try Peers.us(), payer: bob)
        var change = try outgoingRequestChange(request, now: at())
        change.peer = PeerRecord(peerID: bob, name: "Bob", address: "192.0.2.7:7420", seenAt: at())
        change.seenMessage = seen
        await expectConstraintViolation { try await database.apply(change) }

        #expect(try await database.payment(id: request.id) == nil)
        #expect(try await database.events(paymentID: request.id).isEmpty)
        #expect(try await database.outbox(peerID: bob).isEmpty)
        #expect(try await database.peerDirectory().peers.isEmpty)

        // The same change without the duplicate goes through whole.
        change.seenMessage = nil
        let queued = try await database.apply(change)
        #expect(queued.count == 1)
        #expect(try await database.payment(id: request.id) != nil)
        #expect(try await database.events(paymentID: request.id).count == 1)
        #expect(try await database.outbox(peerID: bob).map(\.messageID) == queued.map(\.messageID))
        #expect(try await database.peerDirectory().peers.map(\.name) == ["Bob"])
    }

    @Test("apply() rolls back an event that names an unknown payment, with the payment update before it")
    func applyRollsBackUpdates() async throws {
        let database = try AppDatabase.inMemory()
        let request = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await database.apply(try outgoingRequestChange(request, now: at()))

        var record = try #require(try await database.payment(id: request.id))
        record.state = .cancelled
        record.updatedAt = at(10)
        let orphan = PaymentEventRecord(paymentID: UUID(), at: at(10), from: .pending, to: .cancelled, cause: .local)
        await expectConstraintViolation {
            try await database.apply(LedgerChange(payment: record, events: [orphan]))
        }
        #expect(try await database.payment(id: request.id)?.state == .pending)
        #expect(try await database.events(paymentID: request.id).count == 1)
    }

    @Test("a file database survives close and reopen with everything in it")
    func survivesReopen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("ledger.sqlite")
        let bob = try Peers.bob()
        let us = try Peers.us()

        let outgoing = try makeRequest(payee: us, payer: bob, minorUnits: 1500, currency: "JPY", category: "food")
        let incoming = try makeRequest(payee: bob, payer: us, minorUnits: 12_345, currency: "KWD")
        let incomingMessageID = UUID()
        var cancelMessageID = UUID()
        do {
            let database = try AppDatabase(path: path)
            try await database.apply(try outgoingRequestChange(outgoing, now: at()))
            try await database.apply(try incomingRequestChange(incoming, messageID: incomingMessageID, now: at(5)))
            // The payee cancels while the request is still unacknowledged: both frames stay queued, in order.
            var lifecycle = try #require(try await database.payment(id: outgoing.id)).lifecycle
            cancelMessageID = UUID()
            let actions = lifecycle.handle(.localCancel(messageID: cancelMessageID), now: at(20))
            guard case .send(let cancel) = actions.last else {
                Issue.record("no cancel frame")
                return
            }
            var record = try #require(try await database.payment(id: outgoing.id))
            record.update(from: lifecycle, now: at(20))
            try await database.apply(
                LedgerChange(
                    payment: record,
                    events: [
                        PaymentEventRecord(
                            paymentID: outgoing.id, at: at(20), from: .pending, to: .cancelled, cause: .local,
                            messageID: cancelMessageID)
                    ],
                    outbox: [
                        try OutboxRecord(message: cancel, to: bob, createdAt: at(20), retryUntil: outgoing.expiresAt)
                    ]
                ))
        }

        let reopened = try AppDatabase(path: path)
        let payment = try #require(try await reopened.payment(id: outgoing.id))
        #expect(payment.state == .cancelled)
        #expect(payment.updatedAt == at(20))
        #expect(try payment.request == outgoing)
        #expect(try await reopened.events(paymentID: outgoing.id).map(\.toState) == [.pending, .cancelled])
        #expect(try await reopened.events(paymentID: outgoing.id).map(\.cause) == [.created, .local])

        let outbox = try await reopened.outbox(peerID: bob)
        #expect(outbox.count == 2)
        #expect(outbox.map { try? $0.message.type } == [.request, .cancel])
        #expect(outbox.last?.messageID == cancelMessageID)
        #expect(outbox[0].seq < outbox[1].seq)

        let seen = try #require(try await reopened.seenMessage(id: incomingMessageID, from: bob))
        #expect(seen.peerID == bob)
        #expect(seen.paymentID == incoming.id)
        #expect(
            try seen.responseMessage
                == .ack(.init(ackedID: incomingMessageID, paymentID: incoming.id, state: .pending, reasonCode: nil)))
        let incomingRecord = try #require(try await reopened.payment(id: incoming.id))
        #expect(try incomingRecord.request == incoming)
        #expect(incomingRecord.role == .payer)
        #expect(incomingRecord.peerID == bob)
    }

    @Test("records rebuild the core request and lifecycle")
    func recordRoundTrip() async throws {
        let database = try AppDatabase.inMemory()
        let request = try makeRequest(
            payee: try Peers.bob(), payer: try Peers.us(), minorUnits: 1, currency: "KWD", memo: "café ☕",
            category: "drinks")
        try await database.apply(try incomingRequestChange(request, now: at(1)))
        let record = try #require(try await database.payment(id: request.id))
        #expect(try record.request == request)
        #expect(try record.amount == Money(minorUnits: 1, currency: try CurrencyCode("KWD")))
        #expect(record.lifecycle == PaymentLifecycle(paymentID: request.id, role: .payer, expiresAt: request.expiresAt))
        #expect(record.id.wireString == request.id.wireString)

        // The stored ID is the lower-case text form.
        let storedID = try await database.read("id") { db in try String.fetchOne(db, sql: "SELECT id FROM payment") }
        #expect(storedID == request.id.wireString)
    }

    @Test("a stored row that no longer makes a valid request is reported, not trapped")
    func corruptRecord() async throws {
        var record = PaymentRecord(
            request: try makeRequest(payee: try Peers.us(), payer: try Peers.bob()), role: .payee, state: .pending,
            confirmed: true, now: at())
        record.currency = "XYZ"
        #expect {
            _ = try record.request
        } throws: { error in
            guard case .corruptRecord(let table, let key, _) = error as? StoreError else { return false }
            return table == "payment" && key == record.id.wireString
        }
    }

    @Test("a step's lookups read the rows a generic fetch reads, and report a damaged row instead of trapping")
    func stepLookupsByPosition() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let request = try makeRequest(payee: try Peers.us(), payer: bob)
        let messageID = UUID()
        let answered = UUID()
        var change = try outgoingRequestChange(request, messageID: messageID, now: at())
        change.seenMessage = SeenMessageRecord(
            messageID: answered, peerID: bob, paymentID: request.id, receivedAt: at(),
            response: Data(#"{"type":"ack"}"#.utf8))
        try await database.apply(change)

        // Read by position in a step, and by name through GRDB's rows: the same records.
        let inStep = database.transact([
            { ledger in
                (
                    try ledger.payment(id: request.id), try ledger.outboxRecord(messageID: messageID, peerID: bob),
                    try ledger.seenMessage(id: answered, from: bob), try ledger.payment(id: UUID())
                )
            }
        ])
        let (payment, outbox, seen, missing) = try inStep[0].get()
        #expect(payment != nil)
        #expect(payment == (try await database.payment(id: request.id)))
        #expect(outbox == (try await database.outbox(peerID: bob)).first)
        #expect(seen?.response == change.seenMessage?.response)
        #expect(seen?.paymentID == request.id)
        #expect(missing == nil)

        // A value of the wrong type (written past the schema's checks) is a corrupt record of that payment.
        try await database.write("damage a row") { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(
                sql: "UPDATE payment SET updatedAt = 'soon' WHERE id = ?", arguments: [request.id.wireString])
            try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
        }
        let damaged = database.transact([{ ledger in try ledger.payment(id: request.id) }])
        #expect {
            _ = try damaged[0].get()
        } throws: { error in
            guard case .corruptRecord(let table, let key, let reason) = error as? StoreError else { return false }
            return table == "payment" && key == request.id.wireString && reason.hasPrefix("updatedAt:")
        }
    }

    @Test("a transaction whose lone step throws after writing stores nothing, and the next one commits")
    func loneStepRollsBack() async throws {
        struct Refused: Error {}
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let first = try makeRequest(payee: try Peers.us(), payer: bob)
        let second = try makeRequest(payee: try Peers.us(), payer: bob)
        let firstChange = try outgoingRequestChange(first, messageID: UUID(), now: at())
        let failed = database.transact([
            { ledger in
                try ledger.apply(firstChange)
                #expect(try ledger.payment(id: first.id) != nil)
                throw Refused()
            }
        ])
        #expect(throws: StoreError.self) { try failed[0].get() }
        #expect(try await database.payment(id: first.id) == nil)
        #expect(try await database.outbox(peerID: bob).isEmpty)

        // No transaction was left open: the next one begins, commits, and is read back.
        let secondChange = try outgoingRequestChange(second, messageID: UUID(), now: at())
        let committed = database.transact([{ ledger in try ledger.apply(secondChange).count }])
        #expect(try committed[0].get() == 1)
        #expect(try await database.payment(id: second.id) != nil)
        #expect(try await database.outbox(peerID: bob).count == 1)
    }

    @Test("an update writes the state, never the terms")
    func updateKeepsTerms() async throws {
        let database = try AppDatabase.inMemory()
        let request = try makeRequest(payee: try Peers.bob(), payer: try Peers.us())
        try await database.apply(try incomingRequestChange(request, now: at()))

        var record = try #require(try await database.payment(id: request.id))
        var lifecycle = record.lifecycle
        _ = lifecycle.handle(.localReject(messageID: UUID(), reason: "no"), now: at(30))
        record.update(from: lifecycle, now: at(30))
        record.reason = "no"
        record.memo = "changed by mistake"
        try await database.apply(LedgerChange(payment: record))

        let stored = try #require(try await database.payment(id: request.id))
        #expect(stored.state == .rejected)
        #expect(!stored.confirmed)
        #expect(stored.reason == "no")
        #expect(stored.memo == request.memo)
        #expect(stored.updatedAt == at(30))
        #expect(try await database.pendingPayments().map(\.id) == [request.id])

        // The payee's ack confirms it.
        _ = lifecycle.handle(.peerAck(state: .rejected, reasonCode: nil), now: at(31))
        var confirmed = stored
        confirmed.update(from: lifecycle, now: at(31))
        try await database.apply(LedgerChange(payment: confirmed))
        #expect(try await database.payment(id: request.id)?.confirmed == true)
        #expect(try await database.pendingPayments().isEmpty)
    }

    @Test("a seen message returns the exact stored response bytes")
    func seenMessageBytes() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let messageID = UUID()
        let paymentID = UUID()
        let ack = PaymentMessage.ack(
            .init(ackedID: messageID, paymentID: paymentID, state: .cancelled, reasonCode: .alreadyCancelled))
        let body = Data(try FrameCodec().encodeBody(ack))
        try await database.apply(
            LedgerChange(
                seenMessage: SeenMessageRecord(
                    messageID: messageID, peerID: bob, paymentID: paymentID, receivedAt: at(), response: body)))

        let seen = try #require(try await database.seenMessage(id: messageID, from: bob))
        #expect(seen.response == body)
        #expect(try seen.responseMessage == ack)
        #expect(try await database.seenMessage(id: UUID(), from: bob) == nil)

        // Message IDs are unique per sender only: another peer's frame with the same ID is its own record.
        let carol = try Peers.carol()
        #expect(try await database.seenMessage(id: messageID, from: carol) == nil)
        let carolsAnswer = Data(
            try FrameCodec().encodeBody(
                .ack(.init(ackedID: messageID, paymentID: paymentID, state: .pending, reasonCode: nil))))
        try await database.apply(
            LedgerChange(
                seenMessage: SeenMessageRecord(
                    messageID: messageID, peerID: carol, paymentID: paymentID, receivedAt: at(), response: carolsAnswer)
            ))
        #expect(try await database.seenMessage(id: messageID, from: carol)?.response == carolsAnswer)
        #expect(try await database.seenMessage(id: messageID, from: bob)?.response == body)

        // Bytes are kept as they are, whatever they hold (here a non-canonical error body with a NUL and non-ASCII).
        let odd = Data([0x7B, 0x20, 0x00, 0xC3, 0xA9, 0x7D])
        let otherID = UUID()
        try await database.apply(
            LedgerChange(
                seenMessage: SeenMessageRecord(
                    messageID: otherID, peerID: bob, paymentID: nil, receivedAt: at(), response: odd)))
        #expect(try await database.seenMessage(id: otherID, from: bob)?.response == odd)
        #expect(try await database.seenMessage(id: otherID, from: bob)?.paymentID == nil)
    }

    @Test("peers: upsert keeps firstSeen and a known address, refreshes name and lastSeen")
    func peers() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let carol = try Peers.carol()
        try await database.upsertPeer(bob, name: "bob's laptop", address: "192.0.2.7:7420", seenAt: at())
        try await database.upsertPeer(carol, name: "Carol", address: nil, seenAt: at(5))
        try await database.upsertPeer(bob, name: "Bob", address: nil, seenAt: at(60))

        let peers = try await database.peerDirectory().peers
        #expect(peers.map(\.name) == ["Bob", "Carol"])
        let stored = try #require(try await database.peer(id: bob))
        #expect(stored.firstSeen == at())
        #expect(stored.lastSeen == at(60))
        #expect(stored.address == "192.0.2.7:7420")
        #expect(try await database.peer(id: try Peers.us()) == nil)
    }
}
