import CoreMetrics
import Foundation
import InterPayCore
import InterPayMetrics
import Prometheus
import Synchronization

/// The daemon's metrics: swift-metrics bootstrapped once per process with a Prometheus registry, and the gauges read
/// at each scrape rather than counted (`sample`).
enum DaemonMetrics {
    private static let registry = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The registry every metric of the process goes to, bootstrapping swift-metrics with it the first time (a
    /// process may bootstrap once; a second daemon built in the same process, as in tests, shares it).
    static func bootstrap() -> PrometheusCollectorRegistry {
        registry.withLock { existing in
            if let existing { return existing }
            let made = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: made)
            // A commit takes about a millisecond and a batch holds up to 512 steps: buckets around those, where the
            // defaults start at 5 ms and at 5 steps.
            factory.durationHistogramBuckets[InterPayMetric.ledgerCommitSeconds.name] = [
                .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
                .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2),
            ]
            factory.valueHistogramBuckets[InterPayMetric.ledgerBatchSteps.name] = [
                1, 2, 4, 8, 16, 32, 64, 128, 256, 512,
            ]
            MetricsSystem.bootstrap(factory)
            existing = made
            return made
        }
    }

    /// Sets the gauges that are read, not counted: the sessions by trust and direction, the engine's queue, the
    /// dial targets, the age of the rates, and the process's memory, descriptors and threads.
    static func sample(_ services: DaemonServices) async {
        let node = services.node
        let live = await node.sessions.currentSessions()
        let paired: Set<String>
        do {
            paired = try await node.database.trustedPeerIDs()
        } catch {
            // The gauges are a view: without the pairings, every session counts as unpaired until the next scrape.
            paired = []
        }
        for trust in ["paired", "unpaired"] {
            for direction in ["inbound", "outbound"] {
                let count = live.count { session in
                    (paired.contains(session.peerID.description) == (trust == "paired"))
                        && session.direction.rawValue == direction
                }
                InterPayMetric.sessions.gauge([("trust", trust), ("direction", direction)]).record(count)
            }
        }
        InterPayMetric.engineQueuedSteps.gauge().record(node.engine.queuedSteps)
        InterPayMetric.engineLanes.gauge().record(node.engine.queuedLanes)
        InterPayMetric.discoveryTargets.gauge().record(await node.sessions.dialTargetCount())
        let conversions = services.conversions
        if let fetched = await conversions.rates.cachedFetchTime(base: conversions.base) {
            InterPayMetric.ratesAge.gauge().record(max(0, Timestamp.now.secondsSince1970 - fetched.secondsSince1970))
        }
        let process = ProcessFigures.read()
        if let resident = process.residentBytes { InterPayMetric.residentBytes.gauge().record(resident) }
        if let threads = process.threads { InterPayMetric.threads.gauge().record(threads) }
        if let descriptors = process.openDescriptors { InterPayMetric.openDescriptors.gauge().record(descriptors) }
    }
}

/// The process's own figures from `/proc/self` (swift-metrics no longer carries its Linux system metrics, and no
/// other package here reads them). Reading `/proc` is served from the kernel's memory: no disk is waited on.
struct ProcessFigures {
    var residentBytes: Int?
    var threads: Int?
    var openDescriptors: Int?

    static func read() -> ProcessFigures {
        var figures = ProcessFigures()
        if let status = FileManager.default.contents(atPath: "/proc/self/status") {
            for line in String(decoding: status, as: UTF8.self).split(separator: "\n") {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 2, let value = Int(fields[1]) else { continue }
                if fields[0] == "VmRSS:" { figures.residentBytes = value * 1_024 }
                if fields[0] == "Threads:" { figures.threads = value }
            }
        }
        // A directory that cannot be listed leaves the gauge as it was: the figure is a view, never an error.
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // One of them is the directory being listed.
            figures.openDescriptors = max(0, entries.count - 1)
        }
        return figures
    }
}
