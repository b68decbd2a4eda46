import ArgumentParser
import Foundation

/// `interpay-bench`: measures InterPay against its physical limits, each figure next to a baseline measured in the
/// same run, and prints a table (or JSON).
@main
struct InterpayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interpay-bench",
        abstract: "Measure the payment engine against its baselines: round trip, sustained requests per second.",
        discussion: """
            In-process: two payment engines with their own ledger files and a TLS 1.3 session on loopback. The \
            round trip (request committed on the payee, committed on the payer, ack committed on the payee) is \
            compared with a raw TLS 1.3 echo of the same size plus durable SQLite commits measured the same way. \
            `make bench` also runs scripts/bench-lan (discovery, CLI wall time, memory, scale) and the \
            micro benchmarks. Build in release mode: debug numbers mean little.
            """,
        subcommands: [Handshakes.self])

    @Option(help: "Round trips measured (after one warm-up).")
    var iterations = 200

    @Option(help: "Runs of each sustained-throughput figure.")
    var runs = 3

    @Option(help: "Seconds each sustained-throughput run lasts.")
    var seconds = 5

    @Option(help: "Concurrent senders for the sustained figures, comma-separated.")
    var senders = "1,16,64"

    @Flag(help: "A quick run (few iterations, short runs), to check that the benchmark works.")
    var smoke = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: "Also merge the figures of this JSON report (scripts/bench-lan or bench-daemon --json); repeatable.")
    var merge: [String] = []

    func validate() throws {
        guard iterations > 0, runs > 0, seconds > 0 else {
            throw ValidationError("--iterations, --runs and --seconds must be positive")
        }
        guard !senderCounts.isEmpty, senderCounts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--senders is a comma-separated list of positive counts, e.g. 1,16,64")
        }
    }

    private var senderCounts: [Int] {
        senders.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func run() async throws {
        let iterations = smoke ? 10 : self.iterations
        let runs = smoke ? 1 : self.runs
        let duration = Duration.seconds(smoke ? 1 : seconds)
        let directory = FileManager.default.temporaryDirectory.appending(path: "interpay-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var figures: [Figure] = []
        let engines = try await EngineBenchmarks.start(directory: directory.appending(path: "engines"))
        let commits = try CommitBaseline(directory: directory)
        // Interleaved, so that the figure and its baseline see the same machine: per iteration one echo, three
        // commits (the payee's request, the payer's copy, the payee's ack) and one request round trip.
        log("request round trip and its baseline ×\(iterations)")
        var echoes: [Double] = []
        var commitTimes: [Double] = []
        var baselines: [Double] = []
        var roundTrips: [Double] = []
        try await TLSEchoBaseline.withEcho(directory: directory) { echo in
            for index in 0...iterations {
                let network = try await echo(520)
                let storage = try (0..<3).map { _ in try commits.commit() }
                let roundTrip = try await engines.roundTrip()
                guard index > 0 else { continue }  // the first of each warms up
                echoes.append(network)
                commitTimes += storage
                baselines.append(network + storage.reduce(0, +))
                roundTrips.append(roundTrip)
            }
        }
        let baselineName = "TLS 1.3 echo + 3 SQLite FULL commits"
        figures.append(
            Figure(
                name: "request round trip (p50)", unit: "ms", statistic: "p50", samples: Samples(roundTrips),
                baseline: .init(name: baselineName, samples: Samples(baselines)), target: "≤ 1.5× baseline"))
        figures.append(
            Figure(
                name: "request round trip (p99)", unit: "ms", statistic: "p99", samples: Samples(roundTrips),
                baseline: .init(name: baselineName, samples: Samples(baselines)), target: "≤ 3× baseline"))
        for count in senderCounts {
            log("sustained requests/s, \(count) senders, \(runs) × \(duration)")
            let (rate, cpu) = try await engines.sustained(senders: count, duration: duration, runs: runs)
            let target = count == 64 ? "≥ 5000 req/s" : count == 16 ? "≥ 1500 req/s" : "—"
            figures.append(
                Figure(
                    name: "sustained durable requests, \(count) sender\(count == 1 ? "" : "s")", unit: "req/s",
                    statistic: "p50", samples: rate, baseline: nil, target: target))
            figures.append(
                Figure(
                    name: "CPU per request (both engines, user + system), \(count) sender\(count == 1 ? "" : "s")",
                    unit: "µs", statistic: "p50", samples: cpu, baseline: nil, target: count == 64 ? "≤ 250 µs" : "—"))
        }
        await engines.stop()
        figures.append(
            Figure(
                name: "component: TLS 1.3 echo round trip, 520 B", unit: "ms", statistic: "p50",
                samples: Samples(echoes),
                baseline: nil, target: "—"))
        figures.append(
            Figure(
                name: "component: SQLite commit, synchronous = FULL", unit: "ms", statistic: "p50",
                samples: Samples(commitTimes),
                baseline: nil, target: "—"))
        for index in figures.indices { figures[index].met = Self.meets(figures[index]) }
        for path in merge { figures += try LANReport.figures(fromFileAt: path) }

        let report = Report(machine: .current(), figures: figures)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            report.printTable()
        }
    }

    /// Whether a figure meets the target its text states (`≤ N× baseline`, `≥ N req/s`).
    static func meets(_ figure: Figure) -> Bool? {
        let words = figure.target.split(separator: " ")
        guard words.count >= 2 else { return nil }
        let number = Double(words[1].filter { $0.isNumber || $0 == "." })
        guard let number else { return nil }
        if figure.target.contains("baseline"), let ratio = figure.ratio {
            return words[0] == "≤" ? ratio <= number : ratio >= number
        }
        return words[0] == "≤" ? figure.value <= number : figure.value >= number
    }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data("interpay-bench: \(text)\n".utf8))
    }
}
