import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Statistics over accepted payments", .tearsDown)
struct StatsTests {
    /// A ledger with accepted JPY and KWD payments in both roles, plus payments that must not count.
    static func ledger() async throws -> AppDatabase {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let carol = try Peers.carol()
        // Spending (we are the payer).
        try await storePayment(
            in: database, role: .payer, peer: bob, minorUnits: 1000, currency: "JPY", category: "food")
        try await storePayment(
            in: database, role: .payer, peer: bob, minorUnits: 1001, currency: "JPY", category: "food")
        try await storePayment(in: database, role: .payer, peer: carol, minorUnits: 500, currency: "JPY")
        try await storePayment(
            in: database, role: .payer, peer: carol, minorUnits: 12_345, currency: "KWD", category: "food")
        try await storePayment(
            in: database, role: .payer, peer: carol, minorUnits: 1, currency: "KWD", category: "food")
        // Income (we are the payee).
        try await storePayment(in: database, role: .payee, peer: bob, minorUnits: 2, currency: "KWD", category: "rent")
        try await storePayment(in: database, role: .payee, peer: bob, minorUnits: 3, currency: "KWD", category: "rent")
        // Not counted: not accepted, or accepted but not confirmed by the payee yet.
        try await storePayment(in: database, role: .payer, peer: bob, state: .rejected, minorUnits: 99, currency: "JPY")
        try await storePayment(in: database, role: .payee, peer: bob, state: .pending, minorUnits: 99, currency: "JPY")
        try await storePayment(
            in: database, role: .payee, peer: bob, state: .cancelled, minorUnits: 99, currency: "KWD")
        try await storePayment(in: database, role: .payer, peer: bob, state: .expired, minorUnits: 99, currency: "KWD")
        try await storePayment(
            in: database, role: .payer, peer: bob, state: .accepted, confirmed: false, minorUnits: 7, currency: "JPY",
            category: "food")
        return database
    }

    @Test("by category: per currency and role, integer totals and averages")
    func byCategory() async throws {
        let database = try await Self.ledger()
        let rows = try await database.stats(since: nil, groupBy: .category)
        #expect(
            rows == [
                StatsRow(
                    groupKey: "food", currency: "JPY", role: .payer, count: 2, totalMinor: 2001, averageMinor: 1000),
                StatsRow(
                    groupKey: "food", currency: "KWD", role: .payer, count: 2, totalMinor: 12_346, averageMinor: 6173),
                StatsRow(groupKey: "rent", currency: "KWD", role: .payee, count: 2, totalMinor: 5, averageMinor: 2),
                StatsRow(groupKey: nil, currency: "JPY", role: .payer, count: 1, totalMinor: 500, averageMinor: 500),
            ])
    }

    @Test("by peer")
    func byPeer() async throws {
        let database = try await Self.ledger()
        let bob = try Peers.bob().description
        let carol = try Peers.carol().description
        let rows = try await database.stats(since: nil, groupBy: .peer)
        let expected = [
            StatsRow(groupKey: bob, currency: "JPY", role: .payer, count: 2, totalMinor: 2001, averageMinor: 1000),
            StatsRow(groupKey: bob, currency: "KWD", role: .payee, count: 2, totalMinor: 5, averageMinor: 2),
            StatsRow(groupKey: carol, currency: "JPY", role: .payer, count: 1, totalMinor: 500, averageMinor: 500),
            StatsRow(groupKey: carol, currency: "KWD", role: .payer, count: 2, totalMinor: 12_346, averageMinor: 6173),
        ].sorted {
            ($0.groupKey ?? "", $0.currency, $0.role.rawValue) < ($1.groupKey ?? "", $1.currency, $1.role.rawValue)
        }
        #expect(rows == expected)
    }

    @Test("by currency")
    func byCurrency() async throws {
        let database = try await Self.ledger()
        let rows = try await database.stats(groupBy: .currency)
        #expect(
            rows == [
                StatsRow(groupKey: "JPY", currency: "JPY", role: .payer, count: 3, totalMinor: 2501, averageMinor: 834),
                StatsRow(groupKey: "KWD", currency: "KWD", role: .payee, count: 2, totalMinor: 5, averageMinor: 2),
                StatsRow(
                    groupKey: "KWD", currency: "KWD", role: .payer, count: 2, totalMinor: 12_346, averageMinor: 6173),
            ])
    }

    @Test("unconfirmed accepts count only when asked for")
    func unconfirmed() async throws {
        let database = try await Self.ledger()
        let rows = try await database.stats(groupBy: .currency, includingUnconfirmed: true)
        #expect(
            rows.first
                == StatsRow(
                    groupKey: "JPY", currency: "JPY", role: .payer, count: 4, totalMinor: 2508, averageMinor: 627))
    }

    @Test("since keeps payments created at or after the time")
    func since() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        try await storePayment(
            in: database, role: .payer, peer: bob, minorUnits: 100, currency: "JPY", createdAt: at(0))
        try await storePayment(
            in: database, role: .payer, peer: bob, minorUnits: 200, currency: "JPY", createdAt: at(60))
        try await storePayment(
            in: database, role: .payer, peer: bob, minorUnits: 301, currency: "JPY", createdAt: at(120))
        let rows = try await database.stats(since: at(60), groupBy: .currency)
        #expect(
            rows == [
                StatsRow(groupKey: "JPY", currency: "JPY", role: .payer, count: 2, totalMinor: 501, averageMinor: 250)
            ])
        #expect(try await database.stats(since: at(121), groupBy: .currency).isEmpty)
    }

    @Test("a sum beyond 64 bits is an error, not a wrong number")
    func overflow() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        try await storePayment(in: database, role: .payer, peer: bob, minorUnits: Int64.max, currency: "JPY")
        try await storePayment(in: database, role: .payer, peer: bob, minorUnits: 1, currency: "JPY")
        await #expect {
            _ = try await database.stats(groupBy: .currency)
        } throws: { error in
            if case .database = error as? StoreError { true } else { false }
        }
    }
}
