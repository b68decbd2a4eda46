import Benchmark
import InterPayContract

/// The control socket's own work around a `send`: reading the request's params from the parsed line and encoding the
/// `PaymentInfo` answer as its text, as `ControlDispatcher` does for each call.
enum ControlAnswerBenchmarks {
    /// A pending request as `send` answers it.
    static let payment = PaymentInfo(
        id: "6f1c0e7a-0000-4000-8000-000000000001", shortID: "6f1c0e7a",
        direction: .outgoing,
        peer: PaymentPeer(
            id: String(repeating: "ab", count: 32), shortID: "ABCD-EFGH", name: "Bob's shop", announcedName: "bob",
            trust: .paired),
        amount: "12.50", currency: "EUR", minorUnits: 1_250, memo: "two coffees", category: "food", state: .pending,
        confirmed: true, reason: nil, reasonCode: nil, converted: nil, quote: nil, createdAt: 1_700_000_000,
        expiresAt: 1_700_000_900, updatedAt: 1_700_000_000, acceptedAt: nil, paidAt: nil, settledAt: nil, method: nil,
        reference: nil, receipt: false, series: nil)

    static func register() {
        Benchmark("ControlAnswer.encode send's PaymentInfo") { benchmark in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try ControlAPI.send.encodeResult(payment))
            }
        }
        Benchmark("ControlAnswer.decode send's params") { benchmark in
            let line =
                #"{"jsonrpc":"2.0","id":7,"method":"send","params":{"peer":"ABCD-EFGH","amount":"12.50","currency":"EUR","memo":"two coffees"}}"#
            let request = try RPCRequest(validating: try JSONValue(parsing: line))
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try ControlAPI.send.decodeParams(request.params))
            }
        }
    }
}
