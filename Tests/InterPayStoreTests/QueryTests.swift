import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger queries: ID prefixes, filters, open payments", .tearsDown)
struct QueryTests {
    static func uuid(_ text: String) throws -> UUID { try #require(UUID(uuidString: text)) }

    @Test("payments are found by an ID prefix of at least 4 characters, case-insensitively")
    func prefixLookup() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let first = try Self.uuid("6be2017a-666d-4920-9eb1-81b0ef6a6207")
        let second = try Self.uuid("6be2ffff-0000-4000-8000-000000000001")
        let third = try Self.uuid("a0000000-0000-4000-8000-000000000002")
        try await storePayment(in: database, role: .payee, peer: bob, state: .pending, createdAt: at(0), id: first)
        try await storePayment(in: database, role: .payer, peer: bob, state: .pending, createdAt: at(10), id: second)
        try await storePayment(in: database, role: .payee, peer: bob, state: .pending, createdAt: at(20), id: third)

        #expect(try await database.payments(idPrefix: "6be2").map(\.id) == [second, first])
        #expect(try await database.payments(idPrefix: "6BE20").map(\.id) == [first])
        #expect(try await database.payments(idPrefix: " 6be2017a-666d ").map(\.id) == [first])
        #expect(try await database.payments(idPrefix: first.uuidString).map(\.id) == [first])
        #expect(try await database.payments(idPrefix: "A000").map(\.id) == [third])
        #expect(try await database.payments(idPrefix: "ffff").isEmpty)
    }

    @Test(
        "a prefix that is too short or is not hexadecimal is refused",
        arguments: ["", "6be", "6b%e", "6be2*", "6be_", "zzzz", "6be2017a-666d-4920-9eb1-81b0ef6a6207-"])
    func badPrefixes(prefix: String) async throws {
        let database = try AppDatabase.inMemory()
        await #expect {
            _ = try await database.payments(idPrefix: prefix)
        } throws: { error in
            guard case .invalidPrefix(let text, _) = error as? StoreError else { return false }
            return text == prefix
        }
    }

    @Test("filters by state, role and peer, newest first, with a limit")
    func filters() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let carol = try Peers.carol()
        let a = try await storePayment(in: database, role: .payee, peer: bob, state: .pending, createdAt: at(0))
        let b = try await storePayment(in: database, role: .payer, peer: bob, state: .accepted, createdAt: at(10))
        let c = try await storePayment(in: database, role: .payee, peer: carol, state: .accepted, createdAt: at(20))
        let d = try await storePayment(in: database, role: .payer, peer: carol, state: .rejected, createdAt: at(30))

        #expect(try await database.payments().map(\.id) == [d.id, c.id, b.id, a.id])
        #expect(try await database.payments(filter: PaymentFilter(state: .accepted)).map(\.id) == [c.id, b.id])
        #expect(try await database.payments(filter: PaymentFilter(role: .payee)).map(\.id) == [c.id, a.id])
        #expect(try await database.payments(filter: PaymentFilter(peerID: bob)).map(\.id) == [b.id, a.id])
        #expect(
            try await database.payments(filter: PaymentFilter(state: .accepted, role: .payer, peerID: bob)).map(\.id)
                == [b.id])
        #expect(try await database.payments(filter: PaymentFilter(state: .expired)).isEmpty)
        #expect(try await database.payments(filter: PaymentFilter(limit: 2)).map(\.id) == [d.id, c.id])
        #expect(try await database.payments(filter: PaymentFilter(peerID: carol, limit: 1)).map(\.id) == [d.id])
        #expect(try await database.payments(filter: PaymentFilter(limit: 0)).isEmpty)
    }

    @Test("open payments are the pending ones and a payer's unconfirmed ones, soonest expiry first")
    func pendingPayments() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let late = try await storePayment(in: database, role: .payee, peer: bob, state: .pending, createdAt: at(100))
        let early = try await storePayment(in: database, role: .payer, peer: bob, state: .pending, createdAt: at(0))
        let unconfirmed = try await storePayment(
            in: database, role: .payer, peer: bob, state: .accepted, confirmed: false, createdAt: at(50))
        try await storePayment(in: database, role: .payer, peer: bob, state: .accepted, confirmed: true)
        try await storePayment(in: database, role: .payee, peer: bob, state: .cancelled)
        try await storePayment(in: database, role: .payee, peer: bob, state: .expired)

        #expect(try await database.pendingPayments().map(\.id) == [early.id, unconfirmed.id, late.id])
    }

    @Test("events come back in the order they were appended")
    func eventOrder() async throws {
        let database = try AppDatabase.inMemory()
        let request = try makeRequest(payee: try Peers.bob(), payer: try Peers.us())
        try await database.apply(try incomingRequestChange(request, now: at()))
        let acceptID = UUID()
        try await database.apply(
            LedgerChange(events: [
                PaymentEventRecord(
                    paymentID: request.id, at: at(5), from: .pending, to: .accepted, cause: .local, messageID: acceptID),
                PaymentEventRecord(
                    paymentID: request.id, at: at(5), from: .accepted, to: .cancelled, cause: .ack, detail: "ACLR"),
            ]))
        let events = try await database.events(paymentID: request.id)
        #expect(events.map(\.cause) == [.received, .local, .ack])
        #expect(events.map(\.fromState) == [nil, .pending, .accepted])
        #expect(events[1].messageID == acceptID)
        #expect(events[2].detail == "ACLR")
        #expect(events.allSatisfy { $0.id != nil })
        #expect(try await database.events(paymentID: UUID()).isEmpty)
    }
}
