import Benchmark
import Foundation
import InterPayCore
import InterPayEngine
import InterPayStore
import Logging

/// The payment engine's steps over the in-memory link, each a real transaction on a ledger file (WAL,
/// `synchronous = FULL`): one request round trip is three steps (the payee's request, the payer's copy and ack, the
/// payee's ack), so time and mallocs per iteration are those of three steps, three commits and two frames decoded.
enum EngineStepBenchmarks {
    /// Two engines with ledger files in a temporary directory and a session between them.
    final class Pair: Sendable {
        let payee: PaymentEngine
        let payer: PeerID
        let directory: URL
        let pumps: [Task<Void, Never>]
        let links: [MemoryLink]

        init() throws {
            directory = FileManager.default.temporaryDirectory.appending(path: "interpay-engine-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var logger = Logger(label: "bench.engine")
            logger.logLevel = .critical
            var engines: [PaymentEngine] = []
            var links: [MemoryLink] = []
            for name in ["payee", "payer"] {
                let id = PeerID(subjectPublicKeyInfoDER: Array("key of \(name)".utf8))
                let link = MemoryLink(me: id, name: name)
                let database = try AppDatabase(path: directory.appending(path: "\(name).sqlite").path)
                engines.append(
                    PaymentEngine(
                        me: id, database: database, link: link,
                        requestLimits: .init(maxPending: .max, maxPerMinute: .max), logger: logger))
                links.append(link)
            }
            payee = engines[0]
            payer = links[1].me
            self.links = links
            pumps = zip(engines, links).map { engine, link in
                Task { for await event in link.events { await engine.handle(event) } }
            }
            MemoryLink.connect(links[0], links[1])
        }

        func stop() async {
            for link in links { link.finish() }
            for pump in pumps { await pump.value }
            try? FileManager.default.removeItem(at: directory)  // A leftover temporary directory harms nothing.
        }
    }

    static func register() {
        Benchmark(
            "Engine request round trip (3 steps, 3 durable commits), in-memory link",
            configuration: .init(scalingFactor: .one)
        ) { benchmark async throws in
            let pair = try Pair()
            let amount = Money(minorUnits: 1_250, currency: try CurrencyCode("MXN"))
            // Until the session's `up` events are handled, a request finds no session: warm up until one goes through.
            while (try? await pair.payee.request(
                from: pair.payer, amount: amount, memo: "", category: nil, expiresIn: 3_600, wait: .seconds(10))) == nil
            {
                try await Task.sleep(for: .milliseconds(1))
            }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(
                    try await pair.payee.request(
                        from: pair.payer, amount: amount, memo: "Tacos al pastor", category: nil, expiresIn: 3_600,
                        wait: .seconds(10)))
            }
            benchmark.stopMeasurement()
            await pair.stop()
        }
    }
}
