import Benchmark
import InterPayCore

/// `PaymentLifecycle` transitions: starting a lifecycle and the events of a typical payment on each side.
enum LifecycleBenchmarks {
    static func register() {
        Benchmark("Lifecycle payee: newRequest, peerAccept") { benchmark in
            let payment = try Samples.payment()
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                var (lifecycle, actions) = PaymentLifecycle.newRequest(payment, messageID: Samples.messageID)
                blackHole(actions)
                blackHole(lifecycle.handle(.peerAccept(messageID: Samples.messageID), now: Samples.now))
                blackHole(lifecycle)
            }
        }
        Benchmark("Lifecycle payer: receivedRequest, localAccept, peerAck") { benchmark in
            let payment = try Samples.payment()
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                var (lifecycle, actions) = PaymentLifecycle.receivedRequest(
                    payment, messageID: Samples.messageID, now: Samples.now)
                blackHole(actions)
                blackHole(lifecycle.handle(.localAccept(messageID: Samples.messageID), now: Samples.now))
                blackHole(lifecycle.handle(.peerAck(state: .accepted, reasonCode: nil), now: Samples.now))
                blackHole(lifecycle)
            }
        }
        Benchmark("Lifecycle tick (pending, not due)") { benchmark in
            var lifecycle = PaymentLifecycle(paymentID: Samples.uuid(1), role: .payee, expiresAt: Samples.expiresAt)
            for _ in benchmark.scaledIterations {
                blackHole(lifecycle.handle(.tick, now: Samples.now))
            }
        }
    }
}
