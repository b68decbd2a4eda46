import Foundation
import InterPayCore
import InterPayEngine
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

@Suite("Subscriptions over TLS sessions", .tearsDown, .serialized)
struct SeriesSessionTests {
    static let withSubscriptions = [
        PaymentMessage.Pairing.capability, PaymentMessage.receiptsCapability, PaymentMessage.subscriptionsCapability,
    ]

    @Test("offer → approve over TLS: the period due is requested and accepted automatically on both sides")
    func seriesOverTLS() async throws {
        let alice = try await Node.testing(name: "alice", capabilities: Self.withSubscriptions)
        let bob = try await Node.testing(name: "bob", capabilities: Self.withSubscriptions)
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        #expect(TransportLink(sessions: alice.sessions).session(with: bob.id)?.supportsSubscriptions == true)
        let series = try await alice.engine.offerSeries(
            to: bob.id, amount: Money(minorUnits: 3_000, currency: try CurrencyCode("EUR")), period: .month,
            memo: "gym", category: nil, timeZone: "Europe/Berlin")
        await eventually("bob holds the offer") {
            (try? await bob.database.seriesList())?.first?.series.state == .offered
        }
        _ = try await bob.engine.command(.approve(cap: nil, peer: alice.id), seriesID: series.id)
        let id = SeriesMachine.instanceID(series: series.id, index: 0)
        await eventually("period 0 accepted on both sides") {
            let onAlice = try? await alice.database.payment(id: id)
            let onBob = try? await bob.database.payment(id: id)
            return onAlice?.state == .accepted && onBob?.state == .accepted
        }
        await alice.stop()
        await bob.stop()
    }

    @Test("a payer whose hello lacks the subscriptions capability is told no: nothing is offered or stored")
    func peerWithoutTheCapability() async throws {
        let alice = try await Node.testing(name: "alice", capabilities: Self.withSubscriptions)
        let bob = try await Node.testing(name: "bob")
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        #expect(TransportLink(sessions: alice.sessions).session(with: bob.id)?.supportsSubscriptions == false)
        do {
            _ = try await alice.engine.offerSeries(
                to: bob.id, amount: Money(minorUnits: 3_000, currency: try CurrencyCode("EUR")), period: .week,
                memo: "", category: nil, timeZone: "UTC")
            Issue.record("offered to a peer without subscriptions")
        } catch {
            #expect(String(describing: error).contains("does not support subscriptions"))
        }
        #expect(try await alice.database.seriesList().isEmpty)
        #expect(try await bob.database.seriesList().isEmpty)
        await alice.stop()
        await bob.stop()
    }
}
