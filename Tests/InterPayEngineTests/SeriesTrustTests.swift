import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

/// What the other side of a subscription may not bend (SECURITY.md S-PAST, S-PERIOD-ID, S-NEVER); the hostile
/// scenario `series` makes the same attacks on real daemons.
@Suite("Subscription series: what a peer may not bend", .tearsDown, .serialized)
struct SeriesTrustTests {
    static func request(
        _ payee: MemoryNode, _ payer: MemoryNode, id: UUID, series: SeriesLink?
    ) throws -> PaymentMessage {
        .request(
            .init(
                messageID: UUID(),
                payment: try PaymentRequest(
                    id: id, payee: payee.id, payer: payer.id, amount: try pesos(), memo: "", category: nil,
                    createdAt: .now, expiresAt: Timestamp.now.adding(seconds: 600), series: series)))
    }

    @Test("only the latest period due is accepted without the user, never the earlier ones since the start")
    func onlyTheLatestPeriod() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair()
        // 60 s periods started an hour ago: 61 periods are due, the latest is 60. The payer allows a tenth of a
        // period of clock skew (6 s), so no earlier period may be the latest there.
        let series = try await SeriesEngineTests.offer(alice, bob, ago: 3_600)
        _ = try await bob.engine.command(.approve(cap: nil), seriesID: series.id)
        let latest = SeriesMachine.instanceID(series: series.id, index: 60)
        await eventually("the latest period is accepted") {
            (try? await bob.database.payment(id: latest))?.state == .accepted
        }
        // The payee now asks for periods 0 to 9 itself: each is a period of the series, within the cap, and due.
        for index in 0..<10 {
            await bob.engine.receive(
                try Self.request(
                    alice, bob, id: SeriesMachine.instanceID(series: series.id, index: index),
                    series: SeriesLink(seriesID: series.id, index: index)), from: alice.id)
        }
        await eventually("all stored") {
            (try? await SeriesEngineTests.payments(of: series.id, in: bob).count) == 11
        }
        _ = await bob.engine.ping()
        let payments = try await SeriesEngineTests.payments(of: series.id, in: bob)
        let accepted = payments.filter { $0.state == .accepted }.compactMap(\.seriesIndex)
        #expect(accepted == [60], "before, all 11 were accepted: \(accepted)")
        await alice.stop()
        await bob.stop()
    }

    @Test("the payer cannot take the payment IDs of the periods still to be requested of it")
    func futurePeriodIDs() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair()
        let series = try await SeriesEngineTests.offer(alice, bob)
        _ = try await bob.engine.command(.approve(cap: nil), seriesID: series.id)
        await eventually("period 0 accepted") {
            (try? await alice.database.payment(id: SeriesMachine.instanceID(series: series.id, index: 0)))?.state
                == .accepted
        }
        // Bob, the payer, asks Alice for money under the ID of period 1 of the series she bills him in.
        let taken = SeriesMachine.instanceID(series: series.id, index: 1)
        await alice.engine.receive(try Self.request(bob, alice, id: taken, series: nil), from: bob.id)
        // An ordinary request of his goes through, so the queue has been run past the first one.
        let ordinary = UUID.timeOrdered()
        await alice.engine.receive(try Self.request(bob, alice, id: ordinary, series: nil), from: bob.id)
        await eventually("the ordinary request is stored") { (try? await alice.database.payment(id: ordinary)) != nil }
        #expect(try await alice.database.payment(id: taken) == nil, "before, it was stored under the period's ID")
        // When period 1 falls due (on the payee's clock), it is requested under its own ID, and the payer has it.
        await alice.engine.tick(now: Timestamp.now.adding(seconds: 61))
        await eventually("period 1 requested and delivered") {
            let period = try? await alice.database.payment(id: taken)
            let delivered = try? await bob.database.payment(id: taken)
            return period?.role == .payee && delivered?.role == .payer && delivered?.seriesIndex == 1
        }
        await alice.stop()
        await bob.stop()
    }

    @Test("a request naming an offer never approved is an ordinary one, so the ended offer can be pruned")
    func neverApprovedLink() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair()
        let series = try await SeriesEngineTests.offer(alice, bob)
        let id = SeriesMachine.instanceID(series: series.id, index: 0)
        await bob.engine.receive(
            try Self.request(alice, bob, id: id, series: SeriesLink(seriesID: series.id, index: 0)), from: alice.id)
        await eventually("stored") { (try? await bob.database.payment(id: id)) != nil }
        let stored = try #require(try await bob.database.payment(id: id))
        #expect(stored.state == .pending)
        #expect(stored.seriesID == nil, "before, the link was kept, and the series could never be pruned")
        await alice.stop()
        await bob.stop()
    }
    /// Bob's request frames for periods `indices` of `series`, as Alice (the payee) would send them.
    static func periods(
        _ alice: MemoryNode, _ bob: MemoryNode, series: UUID, _ indices: some Sequence<Int>
    ) throws -> [PaymentMessage] {
        try indices.map { index in
            try request(
                alice, bob, id: SeriesMachine.instanceID(series: series, index: index),
                series: SeriesLink(seriesID: series, index: index))
        }
    }

    static func accepted(of series: UUID, in node: MemoryNode) async throws -> [Int] {
        try await SeriesEngineTests.payments(of: series, in: node).filter { $0.state == .accepted }
            .compactMap(\.seriesIndex).sorted()
    }

    @Test("1 s periods offered as monthly, started 300 s back: at most one period per second of wall time (S-STRETCH)")
    func stretchedPeriods() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair()
        let series = try await SeriesEngineTests.offer(alice, bob, ago: 300, seconds: 1)
        let clock = ContinuousClock()
        let began = clock.now
        // A total that does not stop it: only time may.
        _ = try await bob.engine.command(.approve(cap: nil, periods: 10_000), seriesID: series.id)
        for frame in try Self.periods(alice, bob, series: series.id, 0...600) {
            await bob.engine.receive(frame, from: alice.id)
        }
        await eventually("all stored") {
            (try? await SeriesEngineTests.payments(of: series.id, in: bob).count) == 601
        }
        _ = await bob.engine.ping()
        let elapsed = clock.now - began
        let accepted = try await Self.accepted(of: series.id, in: bob)
        // Times are whole seconds: one acceptance per second counted from the first, in every second touched.
        let seconds = Int(elapsed.components.seconds) + 1
        #expect(
            accepted.count <= seconds + 1,
            "before, \(accepted.count) periods were accepted in \(elapsed) (601 in 7.5 s against real daemons)")
        await alice.stop()
        await bob.stop()
    }

    @Test("a standing approval stops at its total; approving again renews it")
    func approvalTotal() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair()
        let series = try await SeriesEngineTests.offer(alice, bob)
        let now = Timestamp.now
        // 12.50 MXN a period, 25.00 MXN in all: two periods.
        let total = Money(minorUnits: 25_00, currency: try CurrencyCode("MXN"))
        _ = try await bob.engine.command(.approve(cap: nil, total: total), seriesID: series.id)
        await eventually("period 0 accepted") { (try? await Self.accepted(of: series.id, in: bob)) == [0] }
        // Bob's clock a period on, then two: the first is accepted, the second waits for him.
        let frames = try Self.periods(alice, bob, series: series.id, 1...3)
        await bob.engine.receive(frames[0], from: alice.id, now: now.adding(seconds: 61))
        await bob.engine.receive(frames[1], from: alice.id, now: now.adding(seconds: 121))
        _ = await bob.engine.ping()
        #expect(try await Self.accepted(of: series.id, in: bob) == [0, 1], "before, period 2 was accepted too")
        let third = try #require(
            try await bob.database.payment(id: SeriesMachine.instanceID(series: series.id, index: 2)))
        #expect(third.state == .pending)
        // Approved again, for one period: the next one is accepted.
        let renewed = try await bob.engine.command(.approve(cap: nil, periods: 1), seriesID: series.id)
        #expect(renewed.state == .approved && renewed.approvedPeriods == 1 && renewed.autoAccepted == 0)
        await bob.engine.receive(frames[2], from: alice.id, now: now.adding(seconds: 181))
        _ = await bob.engine.ping()
        #expect(try await Self.accepted(of: series.id, in: bob) == [0, 1, 3])
        await alice.stop()
        await bob.stop()
    }

    @Test("without a total, an approval covers 12 periods, or the series' count when smaller")
    func defaultTotal() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair()
        let open = try await SeriesEngineTests.offer(alice, bob)
        let short = try await SeriesEngineTests.offer(alice, bob, count: 3)
        #expect(try await bob.engine.command(.approve(cap: nil), seriesID: open.id).approvedPeriods == 12)
        #expect(try await bob.engine.command(.approve(cap: nil), seriesID: short.id).approvedPeriods == 3)
        await alice.stop()
        await bob.stop()
    }

    @Test("an offer from a peer that is not paired is approved only naming its ID (S-IMPOSTOR)")
    func unverifiedOffer() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair(paired: false)
        let series = try await SeriesEngineTests.offer(alice, bob)
        await #expect(throws: EngineError.self, "before, it was approved as any contact's") {
            try await bob.engine.command(.approve(cap: nil), seriesID: series.id)
        }
        let held = try #require(try await bob.database.seriesList().first { $0.series.id == series.id })
        #expect(held.series.state == .offered && held.series.outMessageID == nil)
        let approved = try await bob.engine.command(.approve(cap: nil, peer: alice.id), seriesID: series.id)
        #expect(approved.state == .approved)
        await alice.stop()
        await bob.stop()
    }

    @Test("an offer with test periods is declined unless this daemon takes them (S-STRETCH)")
    func testPeriodsDeclined() async throws {
        let (alice, bob) = try await SeriesEngineTests.pair(acceptTestPeriods: false)
        let fixed = try await SeriesEngineTests.offer(alice, bob, seconds: 1)
        let calendar = try await SeriesEngineTests.offer(alice, bob, seconds: nil)
        let views = try await bob.database.seriesList()
        let declined = try #require(views.first { $0.series.id == fixed.id })
        #expect(declined.series.state == .declined, "before, it was offered to the user as a monthly series")
        #expect(declined.series.reason == PaymentEngine.testPeriodsReason)
        #expect(views.first { $0.series.id == calendar.id }?.series.state == .offered)
        await eventually("the payee learns it was declined") {
            (try? await alice.database.seriesList().first { $0.series.id == fixed.id })?.series.state == .declined
        }
        await alice.stop()
        await bob.stop()
    }
}
