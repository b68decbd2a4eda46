import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

@Suite("Subscription series over an in-memory link", .tearsDown, .serialized)
struct SeriesEngineTests {
    static let capabilities = [PaymentMessage.receiptsCapability, PaymentMessage.subscriptionsCapability]

    /// Alice and Bob, paired (an offer from a peer that is not paired is approved only naming its ID), on one link.
    static func pair(
        paired: Bool = true, acceptTestPeriods: Bool = true, quote: PaymentEngine.AcceptanceQuote? = nil
    ) async throws -> (MemoryNode, MemoryNode) {
        let alice = try MemoryNode("alice", capabilities: capabilities)
        let bob = try MemoryNode(
            "bob", capabilities: capabilities, acceptTestPeriods: acceptTestPeriods, acceptanceQuote: quote)
        if paired {
            try await alice.database.trust(TrustedPeerRecord(peerID: bob.id, name: "bob", pairedAt: .now))
            try await bob.database.trust(TrustedPeerRecord(peerID: alice.id, name: "alice", pairedAt: .now))
        }
        MemoryLink.connect(alice.link, bob.link)
        await eventually("both sides hold the session") {
            alice.link.session(with: bob.id) != nil && bob.link.session(with: alice.id) != nil
        }
        return (alice, bob)
    }

    /// Alice offers Bob a series of 12.50 MXN every `seconds` s (fixed periods), started `ago` seconds ago.
    static func offer(
        _ alice: MemoryNode, _ bob: MemoryNode, ago: Int64 = 0, count: Int? = nil, seconds: Int64? = 60
    ) async throws
        -> SeriesRecord
    {
        let series = try await alice.engine.offerSeries(
            to: bob.id, amount: try pesos(), period: .month, start: Timestamp.now.adding(seconds: -ago), count: count,
            memo: "gym", category: "sport", timeZone: "UTC", periodSeconds: seconds)
        await eventually("the offer reached the payer") {
            (try? await bob.database.seriesList().first { $0.series.id == series.id }) != nil
        }
        await eventually("the offer was acknowledged") {
            (try? await alice.database.seriesList().first { $0.series.id == series.id })?.series.outMessageID == nil
        }
        return series
    }

    static func payments(of series: UUID, in node: MemoryNode) async throws -> [PaymentRecord] {
        try await node.database.paymentViews(filter: PaymentFilter()).map(\.record).filter { $0.seriesID == series }
    }

    @Test("offer → approve with a cap → the period due is requested and accepted automatically, once")
    func approvedWithinCap() async throws {
        // bob's daemon quotes every amount in euros (1 MXN = 0.05 EUR): the automatic acceptance keeps its quote,
        // as the user's own acceptance does.
        let (alice, bob) = try await Self.pair(quote: { money in
            let euro = try? CurrencyCode("EUR")
            return euro.flatMap { euro in
                try? Quote(
                    amount: money, converted: Money(minorUnits: money.minorUnits / 20, currency: euro), base: euro,
                    fromRate: ExactDecimal(parsing: "20"), toRate: ExactDecimal(parsing: "1"), rate: "0.05",
                    rateIsExact: true, ratesUpdatedAt: .now, isStale: false, ratesAge: 0)
            }
        })
        let series = try await Self.offer(alice, bob)
        let offered = try #require(try await bob.database.seriesList().first)
        #expect(offered.series.state == .offered && offered.series.role == .payer)
        let approved = try await bob.engine.command(
            .approve(cap: Money(minorUnits: 15_00, currency: try CurrencyCode("MXN"))), seriesID: series.id,
            wait: .seconds(5))
        #expect(approved.state == .approved && approved.capMinor == 15_00)
        #expect(approved.outMessageID == nil, "the command waited for alice's acknowledgement")
        let id = SeriesMachine.instanceID(series: series.id, index: 0)
        await eventually("the first period is accepted on both sides") {
            let onBob = try? await bob.database.payment(id: id)
            let onAlice = try? await alice.database.payment(id: id)
            return onBob?.state == .accepted && onAlice?.state == .accepted
        }
        let onBob = try #require(try await bob.database.payment(id: id))
        #expect(onBob.seriesID == series.id && onBob.seriesIndex == 0)
        #expect(onBob.quoteCurrency == "EUR" && onBob.quoteMinor == 62 && onBob.quoteRate == "0.05")
        let events = try await bob.database.events(paymentID: id)
        #expect(events.contains { $0.toState == .accepted && ($0.detail ?? "").contains("accepted automatically") })
        // More ticks in the same period request nothing more.
        await alice.engine.tick()
        await alice.engine.tick()
        #expect(try await Self.payments(of: series.id, in: alice).count == 1)
        let view = try #require(try await bob.database.seriesList().first)
        #expect(view.instances == 1 && view.accepted == 1 && view.paid == 0)
        await alice.stop()
        await bob.stop()
    }

    @Test("a period above the cap waits for the user; only the latest missed period is requested")
    func aboveCapAndMissedPeriods() async throws {
        let (alice, bob) = try await Self.pair()
        // Started 330 s ago with 60 s periods: periods 0 to 5 are due; only 5 is requested.
        let series = try await Self.offer(alice, bob, ago: 330)
        _ = try await bob.engine.command(
            .approve(cap: Money(minorUnits: 10_00, currency: try CurrencyCode("MXN"))), seriesID: series.id)
        let id = SeriesMachine.instanceID(series: series.id, index: 5)
        await eventually("period 5 reached the payer") { (try? await bob.database.payment(id: id)) != nil }
        await alice.engine.tick()
        let onBob = try #require(try await bob.database.payment(id: id))
        #expect(onBob.state == .pending)
        #expect(try await Self.payments(of: series.id, in: bob).count == 1)
        #expect(try await Self.payments(of: series.id, in: alice).count == 1)
        await alice.stop()
        await bob.stop()
    }

    @Test("unsubscribe from either side ends the series on both; nothing more is requested or auto-accepted")
    func unsubscribe() async throws {
        let (alice, bob) = try await Self.pair()
        let first = try await Self.offer(alice, bob, ago: 0)
        _ = try await bob.engine.command(.approve(cap: nil), seriesID: first.id)
        _ = try await bob.engine.command(.end(reason: "moving out"), seriesID: first.id)
        await eventually("the payee sees the series ended") {
            (try? await alice.database.seriesList().first { $0.series.id == first.id })?.series.state == .ended
        }
        let second = try await Self.offer(alice, bob, ago: 0)
        _ = try await alice.engine.command(.end(reason: nil), seriesID: second.id)
        await eventually("the payer sees the series ended") {
            (try? await bob.database.seriesList().first { $0.series.id == second.id })?.series.state == .ended
        }
        await #expect(throws: EngineError.self) {
            try await bob.engine.command(.approve(cap: nil), seriesID: second.id)
        }
        await alice.engine.tick(now: Timestamp.now.adding(seconds: 120))
        #expect(try await Self.payments(of: second.id, in: alice).isEmpty)
        await alice.stop()
        await bob.stop()
    }

    @Test("a period requested while the payer is away is delivered once when it comes back")
    func requestedWhileAway() async throws {
        let (alice, bob) = try await Self.pair()
        // Approved before its first period falls due (in a second); the payer's clock is the real one, so the
        // period is requested when it really falls due, while apart.
        let series = try await Self.offer(alice, bob, ago: -1)
        _ = try await bob.engine.command(.approve(cap: nil), seriesID: series.id)
        await eventually("the payee has the approval") {
            (try? await alice.database.seriesList().first { $0.series.id == series.id })?.series.state == .approved
        }
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("the session is gone") { alice.link.session(with: bob.id) == nil }
        // Ticks while apart, until period 0 falls due and is requested, and one more: one request, committed to the
        // outbox.
        let first = SeriesMachine.instanceID(series: series.id, index: 0)
        await eventually("period 0 requested while apart") {
            await alice.engine.tick()
            return (try? await alice.database.payment(id: first)) != nil
        }
        await alice.engine.tick()
        MemoryLink.connect(alice.link, bob.link)
        // With the whole suite running beside it on a loaded machine, the resend after the reconnect once took
        // longer than the default 30 s: the wait is longer here, and a failure says what each side holds.
        await eventually("period 0 accepted on both sides", timeout: .seconds(90)) {
            (try? await alice.database.payment(id: first))?.state == .accepted
        }
        let onBob = try await Self.payments(of: series.id, in: bob)
        let onAlice = try await alice.database.payment(id: first)
        let outbox = try await alice.database.outbox(peerID: bob.id)
        let anyOnBob = try await bob.database.payment(id: first)
        #expect(
            onBob.count == 1,
            "bob: \(onBob.map { "\($0.seriesIndex ?? -1):\($0.state)" }) (period 0 as \(String(describing: anyOnBob.map { "\($0.state), series \(String(describing: $0.seriesID))" }))), alice: \(String(describing: onAlice?.state)), outbox \(outbox.count), sessions \(alice.link.session(with: bob.id) != nil)/\(bob.link.session(with: alice.id) != nil)"
        )
        await alice.stop()
        await bob.stop()
    }

    @Test("a period's request whose session ended before its step is left for a resend, not stored as an ordinary one")
    func periodAfterItsSession() async throws {
        let (alice, bob) = try await Self.pair()
        let series = try await Self.offer(alice, bob, ago: 0)
        _ = try await bob.engine.command(.approve(cap: nil), seriesID: series.id)
        let request = try PaymentRequest(
            id: SeriesMachine.instanceID(series: series.id, index: 0), payee: alice.id, payer: bob.id,
            amount: try pesos(), memo: "gym", category: "sport", createdAt: .now,
            expiresAt: Timestamp.now.adding(seconds: 3_600), series: SeriesLink(seriesID: series.id, index: 0))
        let frame = PaymentMessage.request(.init(messageID: UUID(), payment: request))
        // What a loaded machine did once in ~10 runs: the frame was read on a session that ended before its step.
        MemoryLink.disconnect(alice.link, bob.link)
        await bob.engine.receive(frame, from: alice.id)
        #expect(await bob.engine.ping())
        #expect(try await bob.database.payment(id: request.id) == nil, "not stored without its session")
        // Resent on the next session: linked to the series and accepted by the standing approval.
        MemoryLink.connect(alice.link, bob.link)
        await eventually("bob's session") { bob.link.session(with: alice.id) != nil }
        await bob.engine.receive(frame, from: alice.id)
        await eventually("accepted by the standing approval") {
            (try? await bob.database.payment(id: request.id))?.state == .accepted
        }
        #expect(try await bob.database.payment(id: request.id)?.seriesID == series.id)
        await alice.stop()
        await bob.stop()
    }

    @Test("a peer without the capability is told no; a request naming someone else's series is an ordinary one")
    func refusals() async throws {
        let alice = try MemoryNode("alice", capabilities: Self.capabilities)
        let carol = try MemoryNode("carol", capabilities: [PaymentMessage.receiptsCapability])
        MemoryLink.connect(alice.link, carol.link)
        await eventually("session") { alice.link.session(with: carol.id) != nil }
        await #expect(throws: EngineError.self) {
            try await alice.engine.offerSeries(
                to: carol.id, amount: try pesos(), period: .week, memo: "", category: nil, timeZone: "UTC")
        }
        await alice.stop()
        await carol.stop()

        let (payee, payer) = try await Self.pair()
        let forged = try PaymentRequest(
            id: UUID(), payee: payee.id, payer: payer.id, amount: try pesos(), memo: "", category: nil,
            createdAt: .now, expiresAt: Timestamp.now.adding(seconds: 600),
            series: SeriesLink(seriesID: UUID(), index: 0))
        await payer.engine.receive(.request(.init(messageID: UUID(), payment: forged)), from: payee.id)
        await eventually("stored") { (try? await payer.database.payment(id: forged.id)) != nil }
        let stored = try #require(try await payer.database.payment(id: forged.id))
        #expect(stored.state == .pending && stored.seriesID == nil)

        // An approved series: a request for period 0 under another ID than the derived one is an ordinary request,
        // and a period not yet due is not accepted in advance.
        let series = try await Self.offer(payee, payer)
        _ = try await payer.engine.command(.approve(cap: nil), seriesID: series.id)
        let first = SeriesMachine.instanceID(series: series.id, index: 0)
        await eventually("period 0 accepted") { (try? await payer.database.payment(id: first))?.state == .accepted }
        let second = try PaymentRequest(
            id: UUID(), payee: payee.id, payer: payer.id, amount: try pesos(), memo: "", category: nil,
            createdAt: .now, expiresAt: Timestamp.now.adding(seconds: 600),
            series: SeriesLink(seriesID: series.id, index: 0))
        await payer.engine.receive(.request(.init(messageID: UUID(), payment: second)), from: payee.id)
        let early = try PaymentRequest(
            id: SeriesMachine.instanceID(series: series.id, index: 50), payee: payee.id, payer: payer.id,
            amount: try pesos(), memo: "", category: nil, createdAt: .now,
            expiresAt: Timestamp.now.adding(seconds: 600),
            series: SeriesLink(seriesID: series.id, index: 50))
        await payer.engine.receive(.request(.init(messageID: UUID(), payment: early)), from: payee.id)
        await eventually("both stored") {
            let one = try? await payer.database.payment(id: second.id)
            let other = try? await payer.database.payment(id: early.id)
            return one != nil && other != nil
        }
        let secondStored = try #require(try await payer.database.payment(id: second.id))
        #expect(secondStored.state == .pending && secondStored.seriesID == nil)
        let earlyStored = try #require(try await payer.database.payment(id: early.id))
        #expect(earlyStored.state == .pending && earlyStored.seriesID == series.id)
        await payee.stop()
        await payer.stop()
    }

    @Test("offers waiting for the user are bounded per peer: the next one is refused and not stored")
    func floodOfOffers() async throws {
        let (alice, bob) = try await Self.pair()
        var offered: [UUID] = []
        for _ in 0...PaymentEngine.maxOffersPerPeer {
            offered.append(
                try await alice.engine.offerSeries(
                    to: bob.id, amount: try pesos(), period: .week, memo: "", category: nil, timeZone: "UTC"
                ).id)
        }
        await eventually("the payer holds the first offers") {
            (try? await bob.database.seriesList().count) == PaymentEngine.maxOffersPerPeer
        }
        // One more ping through the payer's queue, then the count is final.
        _ = await bob.engine.ping()
        let stored = try await bob.database.seriesList().map(\.series.id)
        #expect(stored.count == PaymentEngine.maxOffersPerPeer)
        #expect(Set(stored) == Set(offered.prefix(PaymentEngine.maxOffersPerPeer)))
        // Declining one makes room: the refused offer, resent on the next session, is stored then, and the declined
        // one, the oldest never approved, goes.
        _ = try await bob.engine.command(.decline(reason: nil), seriesID: offered[0])
        // A declined offer makes room once the payee has the decline: until then its row holds the frame to resend.
        await eventually("the payee acknowledged the decline") {
            guard let views = try? await bob.database.seriesList(),
                let declined = views.first(where: { $0.series.id == offered[0] })
            else { return false }
            return declined.series.state == .declined && declined.series.outMessageID == nil
        }
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("apart") { alice.link.session(with: bob.id) == nil }
        MemoryLink.connect(alice.link, bob.link)
        await eventually("the refused offer arrives on the next session") {
            (try? await bob.database.seriesList().map(\.series.id).contains(offered[PaymentEngine.maxOffersPerPeer]))
                == true
        }
        let after = try await bob.database.seriesList().map(\.series.id)
        #expect(Set(after) == Set(offered.dropFirst()))
        await alice.stop()
        await bob.stop()
    }

    @Test("a payee that offers and ends, again and again, leaves at most the per-peer bound of rows")
    func offerAndEndAgain() async throws {
        let (alice, bob) = try await Self.pair()
        let rounds = PaymentEngine.maxOffersPerPeer * 3
        for _ in 0..<rounds {
            let series = try await alice.engine.offerSeries(
                to: bob.id, amount: try pesos(), period: .week, memo: "", category: nil, timeZone: "UTC")
            await eventually("the payer holds the offer") {
                (try? await bob.database.seriesList().map(\.series.id).contains(series.id)) == true
            }
            _ = try await alice.engine.command(.end(reason: nil), seriesID: series.id)
            await eventually("the payer saw it end") {
                (try? await bob.database.seriesList().first { $0.series.id == series.id }?.series.state) == .ended
            }
        }
        // Before, every round left its row: 48 here, and as many as a peer cared to send.
        #expect(try await bob.database.seriesList().count == PaymentEngine.maxOffersPerPeer)
        await alice.stop()
        await bob.stop()
    }
}
