import InterPayCore
import InterPayMetrics
import Synchronization

/// How many log lines peers may cause: a token bucket per peer, one per source address and one for all peers
/// together, so that a peer sending 2,000 undecodable frames, one name change after another, or a host opening
/// sessions under hundreds of fresh keys (each key a new peer) costs the log a bounded number of lines and a count.
///
/// A line is a peer's when its metadata names one (`id`, else `peer`, else `address`); lines at `error` and
/// above, lines the local user caused (metadata `cause=user`) and lines about no peer are never held back. A line
/// needs a token of its peer's bucket, of its address's bucket (the `address` of the line, else the one last seen
/// with that peer: `associate(peer:host:)`), and of the daemon-wide bucket. What was held back is said twice: the
/// peer's next line carries `suppressed=N`, and `summary(now:)` gives, at most once per `summaryInterval`, how many
/// lines from how many peers were left out since the last summary (the daemon logs it: "N log lines from M peers
/// suppressed"). At most `maxPeers` buckets of each kind are kept: past that the fullest ones (peers and addresses
/// that have been quiet) are forgotten first, which only gives them their whole burst again.
public final class PeerLogBudget: Sendable {
    /// Lines a peer may cause at once.
    public let burst: Double
    /// Lines per second a peer's budget regains.
    public let perSecond: Double
    /// Lines the peers of one source address may cause at once.
    public let addressBurst: Double
    /// Lines per second an address's budget regains.
    public let addressPerSecond: Double
    /// Lines all peers together may cause at once.
    public let totalBurst: Double
    /// Lines per second the daemon-wide budget regains.
    public let totalPerSecond: Double
    /// How often a summary of what was left out is given at most.
    public let summaryInterval: Duration
    /// Peers (and addresses) tracked at once.
    public let maxPeers: Int

    private struct Bucket {
        var tokens: TokenBucket
        var suppressed: Int
    }

    private struct State {
        var peers: [String: Bucket] = [:]
        var addresses: [String: TokenBucket] = [:]
        var hosts: [String: String] = [:]
        var total: TokenBucket?
        /// Lines left out since the last summary, and the peers they were about (at most `maxPeers` named).
        var dropped = 0
        var droppedPeers: Set<String> = []
        var lastSummary: ContinuousClock.Instant?
        var lastSweep: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// The budget every daemon log handler shares.
    public static let shared = PeerLogBudget()

    /// A budget of `burst` lines at once and `perSecond` after that per peer, `addressBurst` and
    /// `addressPerSecond` per source address, `totalBurst` and `totalPerSecond` for all peers together. The
    /// defaults let at most 200 + 5 a second peer-caused lines through (350 in 30 s), far below journald's rate limit
    /// that the unit sets, so that what the daemon keeps reaches the journal.
    public init(
        burst: Double = 30, perSecond: Double = 1, addressBurst: Double = 60, addressPerSecond: Double = 2,
        totalBurst: Double = 200, totalPerSecond: Double = 5, summaryInterval: Duration = .seconds(10),
        maxPeers: Int = 4_096
    ) {
        self.burst = burst
        self.perSecond = perSecond
        self.addressBurst = addressBurst
        self.addressPerSecond = addressPerSecond
        self.totalBurst = totalBurst
        self.totalPerSecond = totalPerSecond
        self.summaryInterval = summaryInterval
        self.maxPeers = maxPeers
    }

    /// Remembers that `peer` (the key its lines are budgeted under: its short ID) is at `host`, so that its lines
    /// without an address share that address's budget.
    public func associate(peer: String, host: String) {
        state.withLock { state in
            if state.hosts[peer] == nil, state.hosts.count >= maxPeers {
                for key in state.hosts.keys.prefix(maxPeers / 4) { state.hosts[key] = nil }
            }
            state.hosts[peer] = host
        }
    }

    /// Whether a line about `peer` may be written at `now`: nil when it must be left out, else how many lines about
    /// that peer were left out before it (to say so on this line). `address` is the line's own address, if any
    /// (`host` or `host:port`).
    public func admit(_ peer: String, address: String? = nil, now: ContinuousClock.Instant = .now) -> Int? {
        let admitted = admitUnderLock(peer, address: address, now: now)
        if admitted == nil { InterPayMetric.logLinesSuppressed.counter().increment() }
        return admitted
    }

    private func admitUnderLock(_ peer: String, address: String?, now: ContinuousClock.Instant) -> Int? {
        state.withLock { state in
            var bucket =
                state.peers[peer]
                ?? Bucket(tokens: TokenBucket(capacity: burst, perSecond: perSecond, now: now), suppressed: 0)
            let host = address.map(Self.host(of:)) ?? state.hosts[peer]
            var all = state.total ?? TokenBucket(capacity: totalBurst, perSecond: totalPerSecond, now: now)
            var fromHost = host.map {
                state.addresses[$0] ?? TokenBucket(capacity: addressBurst, perSecond: addressPerSecond, now: now)
            }
            bucket.tokens.refill(now: now)
            all.refill(now: now)
            fromHost?.refill(now: now)
            let admitted = bucket.tokens.tokens >= 1 && all.tokens >= 1 && (fromHost?.tokens ?? 1) >= 1
            let result: Int?
            if admitted {
                _ = bucket.tokens.take(now: now)
                _ = all.take(now: now)
                _ = fromHost?.take(now: now)
                result = bucket.suppressed
                bucket.suppressed = 0
            } else {
                bucket.suppressed += 1
                state.dropped += 1
                if state.droppedPeers.count < maxPeers { state.droppedPeers.insert(peer) }
                result = nil
            }
            state.total = all
            if state.peers[peer] == nil, state.peers.count >= maxPeers {
                // Forget the peers with the most tokens left: those that caused the fewest lines lately.
                let quiet = state.peers.sorted { $0.value.tokens.tokens > $1.value.tokens.tokens }
                    .prefix(maxPeers / 4)
                for (key, _) in quiet { state.peers[key] = nil }
            }
            state.peers[peer] = bucket
            if let host, let fromHost {
                if state.addresses[host] == nil, state.addresses.count >= maxPeers {
                    let quiet = state.addresses.sorted { $0.value.tokens > $1.value.tokens }.prefix(maxPeers / 4)
                    for (key, _) in quiet { state.addresses[key] = nil }
                }
                state.addresses[host] = fromHost
            }
            return result
        }
    }

    /// How many lines, from how many peers, were left out since the last summary: nil when none were, or when the
    /// last summary is less than `summaryInterval` old. The daemon asks every second and logs the answer.
    /// Every `summaryInterval` it also forgets what a new bucket would hold anyway (`sweep`).
    public func summary(now: ContinuousClock.Instant = .now) -> (lines: Int, peers: Int)? {
        state.withLock { state in
            sweep(&state, now: now)
            guard state.dropped > 0 else { return nil }
            if let last = state.lastSummary, now - last < summaryInterval { return nil }
            defer {
                state.dropped = 0
                state.droppedPeers = []
                state.lastSummary = now
            }
            return (state.dropped, state.droppedPeers.count)
        }
    }

    /// At most every `summaryInterval`, forgets the buckets that are full again (a new bucket is the same), and the
    /// addresses of peers it no longer tracks, into new, smaller tables. A host opening sessions under thousands of
    /// fresh keys grew the tables to `maxPeers` entries each (about 400 KB): most of those keys had lines left out
    /// (the daemon-wide budget ran dry) and never came back to be told so. A table's storage never shrinks when
    /// entries are removed one by one, so it stayed after the churn ended. What a forgotten peer had left out was
    /// counted in the summaries already; only the `suppressed=N` of its next line is lost.
    private func sweep(_ state: inout State, now: ContinuousClock.Instant) {
        if let last = state.lastSweep, now - last < summaryInterval { return }
        state.lastSweep = now
        let peers = state.peers.filter { _, bucket in
            var tokens = bucket.tokens
            tokens.refill(now: now)
            return tokens.tokens < tokens.capacity
        }
        state.peers = peers
        state.addresses = state.addresses.filter { _, bucket in
            var bucket = bucket
            bucket.refill(now: now)
            return bucket.tokens < bucket.capacity
        }
        state.hosts = state.hosts.filter { peers[$0.key] != nil }
    }

    /// Peers, addresses and peer-to-address links tracked now.
    var tracked: (peers: Int, addresses: Int, hosts: Int) {
        state.withLock { ($0.peers.count, $0.addresses.count, $0.hosts.count) }
    }

    /// An address without its port: `198.18.0.7:7420` → `198.18.0.7`; an IPv6 address, which the daemon writes
    /// `host:port` as well (`fe80::1:7420`), loses its last group, so that a new port never gives a new budget.
    static func host(of address: String) -> String {
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }
}
