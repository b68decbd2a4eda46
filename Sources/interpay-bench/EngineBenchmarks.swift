import Foundation
import InterPayCore
import InterPayDaemon
import InterPayTransport
import Logging

/// Two payment engines in this process, each with its own ledger file and TLS listener on loopback, and a session
/// between them: the daemon's payment path without its control socket or discovery.
struct EngineBenchmarks {
    let payee: Node
    let payer: Node

    static func start(directory: URL) async throws -> EngineBenchmarks {
        let payee = try await node("bench-payee", directory: directory.appending(path: "payee"))
        let payer = try await node("bench-payer", directory: directory.appending(path: "payer"))
        await payee.connect(to: payer)
        return EngineBenchmarks(payee: payee, payer: payer)
    }

    /// A node as the daemon builds it (`Node`), running on loopback, without per-peer request limits (the benchmark
    /// floods one peer on purpose) and with quick redials.
    static func node(_ name: String, directory: URL) async throws -> Node {
        var logger = Logger(label: "bench.\(name)")
        logger.logLevel = .critical
        var transport = TransportConfiguration(displayName: name, host: "127.0.0.1")
        transport.reconnectBackoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(500))
        var options = Node.Options(name: name, transport: transport)
        options.requestLimits = .init(maxPending: .max, maxPerMinute: .max)
        options.issuesReceipts = false
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let node = try Node(directory: directory.path, options: options, logger: logger)
        _ = try await node.runInBackground()
        return node
    }

    /// Asks the payer for `amount` on the payee's side and returns once the payer's ack is committed there.
    private func requestAcknowledged(amount: Money, memo: String) async throws {
        _ = try await payee.engine.request(
            from: payer.id, amount: amount, memo: memo, category: nil, expiresIn: 3_600, wait: .seconds(30))
    }

    func stop() async {
        await payee.stop()
        await payer.stop()
    }

    /// One request round trip in milliseconds: from the payee's `request` (commit, send) until the payer's ack is
    /// committed on the payee — three durable commits and one network round trip.
    func roundTrip() async throws -> Double {
        let amount = Money(minorUnits: 1_250, currency: try CurrencyCode("MXN"))
        let clock = ContinuousClock()
        let start = clock.now
        try await requestAcknowledged(amount: amount, memo: "Tacos al pastor")
        return (clock.now - start).milliseconds
    }

    /// Sustained durable requests per second with `senders` concurrent senders, each sending its next request once
    /// its previous one is acknowledged, for `duration`; one sample per run. Also the CPU time (user + system of
    /// this process, both engines and their TLS sessions) per completed request, in microseconds, per run.
    func sustained(senders: Int, duration: Duration, runs: Int) async throws -> (rate: Samples, cpu: Samples) {
        let amount = Money(minorUnits: 500, currency: try CurrencyCode("EUR"))
        var samples: [Double] = []
        var cpuSamples: [Double] = []
        for _ in 0..<runs {
            let clock = ContinuousClock()
            let cpuBefore = Self.processCPUSeconds()
            let start = clock.now
            let deadline = start + duration
            let completed = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<senders {
                    group.addTask {
                        var count = 0
                        while clock.now < deadline {
                            try await requestAcknowledged(amount: amount, memo: "")
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
            let elapsed = (clock.now - start).milliseconds / 1_000
            samples.append(Double(completed) / elapsed)
            cpuSamples.append((Self.processCPUSeconds() - cpuBefore) / Double(max(1, completed)) * 1_000_000)
        }
        return (Samples(samples), Samples(cpuSamples))
    }

    /// User + system CPU seconds of this process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
