import CoreMetrics
import InterPayCore
import InterPayMetrics
import InterPayStore
import InterPayTestSupport
import MetricsTestKit
import Testing

@testable import InterPayEngine

/// The engine's metrics count what was committed: payments entering each state, by role, and the transactions.
@Suite("The engine's metrics", .tearsDown, .serialized)
struct EngineMetricsTests {
    @Test("five requests, three accepted and two rejected: each side counts exactly those, by its role")
    func paymentsCounted() async throws {
        let (payeeMetrics, payerMetrics) = (TestMetrics(), TestMetrics())
        let alice = try withMetricsFactory(payeeMetrics) { try MemoryNode("alice") }
        let bob = try withMetricsFactory(payerMetrics) { try MemoryNode("bob") }
        MemoryLink.connect(alice.link, bob.link)
        var ids: [PaymentRecord] = []
        for _ in 0..<5 {
            ids.append(
                try await alice.engine.request(
                    from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10)))
        }
        for record in ids.prefix(3) {
            _ = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        }
        for record in ids.suffix(2) {
            _ = try await bob.engine.decide(.reject(reason: nil), paymentID: record.id, wait: .seconds(10))
        }
        func count(_ metrics: TestMetrics, _ role: PaymentRole, _ state: PaymentState) -> Int64 {
            (try? metrics.expectCounter(
                InterPayMetric.payments.name, [("role", role.rawValue), ("state", state.rawValue)]))?.totalValue ?? -1
        }
        #expect(
            await eventually("alice counts the payer's decisions once their frames are committed") {
                count(payeeMetrics, .payee, .accepted) == 3 && count(payeeMetrics, .payee, .rejected) == 2
            })
        #expect(count(payeeMetrics, .payee, .pending) == 5)
        #expect(count(payerMetrics, .payer, .pending) == 5)
        #expect(count(payerMetrics, .payer, .accepted) == 3)
        #expect(count(payerMetrics, .payer, .rejected) == 2)
        #expect(count(payeeMetrics, .payer, .pending) == 0, "alice was never asked to pay")
        let commits = try payeeMetrics.expectCounter(InterPayMetric.ledgerCommits.name).totalValue
        #expect(commits >= 5)
        #expect(try payeeMetrics.expectTimer(InterPayMetric.ledgerCommitSeconds.name).values.count == Int(commits))
        await alice.stop()
        await bob.stop()
    }
}
