import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

/// What `list`, `history`, `show` and `stats` read: payments with their peers' names, in one read each.
@Suite("Payment views: payments with names, one read", .tearsDown)
struct PaymentViewTests {
    @Test("views carry the announced and the pinned name, filtered, newest first, limited in SQL")
    func views() async throws {
        let database = try AppDatabase.inMemory()
        let (bob, carol) = (try Peers.bob(), try Peers.carol())
        try await database.upsertPeer(bob, name: "bob-laptop", address: nil, seenAt: at(0))
        try await database.trust(TrustedPeerRecord(peerID: bob, name: "Bob", pairedAt: at(0)))
        let a = try await storePayment(in: database, role: .payee, peer: bob, state: .pending, createdAt: at(0))
        let b = try await storePayment(in: database, role: .payer, peer: carol, state: .accepted, createdAt: at(10))
        let c = try await storePayment(in: database, role: .payee, peer: bob, state: .rejected, createdAt: at(20))

        let all = try await database.paymentViews()
        #expect(all.map(\.record.id) == [c.id, b.id, a.id])
        #expect(all.map(\.announcedName) == ["bob-laptop", nil, "bob-laptop"])
        #expect(all.map(\.pinnedName) == ["Bob", nil, "Bob"])
        #expect(try await database.paymentViews(filter: PaymentFilter(limit: 2)).map(\.record.id) == [c.id, b.id])
        #expect(
            try await database.paymentViews(filter: PaymentFilter(finalOnly: true)).map(\.record.id) == [c.id, b.id])
        #expect(try await database.paymentViews(filter: PaymentFilter(peerID: carol)).map(\.record.id) == [b.id])
        #expect(
            try await database.paymentViews(filter: PaymentFilter(state: .pending, role: .payee)).map(\.record.id)
                == [a.id])
        let single = try await database.paymentView(a)
        #expect(single.announcedName == "bob-laptop" && single.pinnedName == "Bob")
        let unknown = try await database.paymentView(b)
        #expect(unknown.announcedName == nil && unknown.pinnedName == nil)
    }

    @Test("a detail has the events of the one payment its prefix names, and none when the prefix is ambiguous")
    func detail() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let first = try #require(UUID(uuidString: "6be2017a-666d-4920-9eb1-81b0ef6a6207"))
        let second = try #require(UUID(uuidString: "6be2ffff-0000-4000-8000-000000000001"))
        try await storePayment(in: database, role: .payee, peer: bob, state: .pending, createdAt: at(0), id: first)
        try await storePayment(in: database, role: .payee, peer: bob, state: .pending, createdAt: at(5), id: second)
        let one = try await database.paymentDetail(idPrefix: "6BE20")
        #expect(one.matches.map(\.record.id) == [first])
        #expect(one.events == (try await database.events(paymentID: first)))
        let both = try await database.paymentDetail(idPrefix: "6be2")
        #expect(both.matches.count == 2 && both.events.isEmpty)
        await #expect(throws: StoreError.self) { try await database.paymentDetail(idPrefix: "6b") }
    }

    @Test("statistics by peer carry the peer's names from the same read")
    func statsNames() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        try await database.upsertPeer(bob, name: "bob-laptop", address: nil, seenAt: at(0))
        try await database.trust(TrustedPeerRecord(peerID: bob, name: "Bob", pairedAt: at(0)))
        try await storePayment(in: database, role: .payee, peer: bob, state: .accepted, createdAt: at(0))
        let rows = try await database.stats(groupBy: .peer)
        #expect(rows.count == 1)
        #expect(rows.first?.announcedName == "bob-laptop" && rows.first?.pinnedName == "Bob")
        #expect(try await database.stats(groupBy: .currency).first?.pinnedName == nil)
    }
}
