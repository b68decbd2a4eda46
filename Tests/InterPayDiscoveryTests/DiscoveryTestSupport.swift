import Foundation
import InterPayCore
import Logging
import Synchronization
import Testing

@testable import InterPayDiscovery

/// Where the tests run: inside a `scripts/lan-sandbox` host (its own avahi-daemon) or outside (no avahi).
enum TestEnvironment {
    /// `scripts/lan-sandbox exec` sets `LAN_SANDBOX_HOST`; only then may a test talk to an avahi-daemon.
    static let inSandbox = ProcessInfo.processInfo.environment["LAN_SANDBOX_HOST"] != nil
    /// The sandbox host's address on its LAN interface.
    static let address = ProcessInfo.processInfo.environment["LAN_SANDBOX_ADDR"]
    /// The sandbox host's mDNS host name (without `.local`).
    static let hostName = ProcessInfo.processInfo.environment["LAN_SANDBOX_HOSTNAME"]
    /// Set when the caller restarts this host's avahi-daemon during the run (see `avahiRestart`).
    static let avahiRestartExpected = ProcessInfo.processInfo.environment["DISCOVERY_AVAHI_RESTART"] != nil

    /// A fresh instance name, so that runs never see each other's leftovers.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix) \(UInt32.random(in: 0...UInt32.max))"
    }

    /// A peer ID made of one repeated byte plus a random tail.
    static func peerID(_ byte: UInt8) throws -> PeerID {
        try PeerID(bytes: [byte] + (1..<32).map { _ in UInt8.random(in: 0...255) })
    }
}

/// Collects the events of one discovery stream, so that tests can wait for one with a deadline.
final class EventRecorder: Sendable {
    private actor Log {
        var events: [(DiscoveryEvent, ContinuousClock.Instant)] = []
        func append(_ event: DiscoveryEvent) { events.append((event, .now)) }
        func all() -> [(DiscoveryEvent, ContinuousClock.Instant)] { events }
    }

    private let log = Log()
    private let task: Task<Void, Never>
    /// When recording started.
    let started = ContinuousClock.now

    /// Consumes `stream` in a task until `stop()`.
    init(_ stream: AsyncStream<DiscoveryEvent>) {
        let log = self.log
        task = Task {
            for await event in stream { await log.append(event) }
        }
    }

    /// Every event so far.
    var events: [DiscoveryEvent] {
        get async { await log.all().map(\.0) }
    }

    /// The first event (recorded already or arriving within `timeout`) that `predicate` accepts, with the time
    /// it arrived; nil when none came in time.
    func first(
        within timeout: Duration, where predicate: (DiscoveryEvent) -> Bool
    ) async -> (event: DiscoveryEvent, at: ContinuousClock.Instant)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let match = await log.all().first(where: { predicate($0.0) }) { return (match.0, match.1) }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether at least `count` events that `predicate` accepts arrive (or have arrived) within `timeout`.
    func count(within timeout: Duration, atLeast count: Int, where predicate: (DiscoveryEvent) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if await log.all().filter({ predicate($0.0) }).count >= count { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops consuming: the stream terminates, which ends the discovery run.
    func stop() async {
        task.cancel()
        await task.value
    }
}

/// Waits until `condition` holds, polling every 20 ms, for at most `timeout` of polls (a stalled process does not
/// use them up: `InterPayTestSupport.eventually`); false when it never did.
func eventually(within timeout: Duration, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<max(1, Int(timeout / .milliseconds(20))) {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// Whether every discovery session and DNS-SD ref of the tests is gone.
func everythingReleased() -> Bool {
    DiscoverySession.liveCount == 0 && DNSServiceOperation.liveCount == 0
}

extension DiscoveryEvent {
    /// The peer of `appeared` or `changed`.
    var peer: DiscoveredPeer? {
        switch self {
        case .appeared(let peer), .changed(let peer): peer
        default: nil
        }
    }

    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }

    var isAvailable: Bool { self == .available }

    var registeredName: String? {
        if case .registered(let name) = self { return name }
        return nil
    }
}

extension Duration {
    /// Seconds with two decimals, for printed measurements.
    var seconds: String {
        let (whole, atto) = components
        return String(format: "%.2f s", Double(whole) + Double(atto) / 1e18)
    }
}
