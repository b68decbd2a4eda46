import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

/// What the other side of a subscription may not bend (SECURITY.md S-PAST, S-PERIOD-ID, S-NEVER); the hostile
/// scenario `series` makes the same attacks on real daemons.
@Suite("Subscription series: what a peer may not bend", .serialized)
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
        // 60 s periods started an hour ago: 61 periods are due, the latest is 60. The payer's clock may be 300 s
        // behind the payee's, so periods from 55 on may be the latest there.
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
        // When period 1 falls due, it is requested, and accepted.
        await alice.engine.tick(now: Timestamp.now.adding(seconds: 61))
        await eventually("period 1 requested and accepted") {
            let period = try? await alice.database.payment(id: taken)
            return period?.role == .payee && period?.state == .accepted
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
}
