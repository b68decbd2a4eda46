import Synchronization

/// How many log lines each peer may cause: a token bucket per peer, so that a peer sending 2,000 undecodable
/// frames, or one name change after another, costs the log a few lines and a count, not 2,000 lines.
///
/// A line is the peer's when its metadata names one (`id`, else `peer`, else `address`); lines at `error` and
/// above, and lines about no peer, are never held back. At most `maxPeers` buckets are kept: past that the fullest
/// ones (peers that have been quiet) are forgotten first, which only gives them their whole burst again.
public final class PeerLogBudget: Sendable {
    /// Lines a peer may cause at once.
    public let burst: Double
    /// Lines per second a peer's budget regains.
    public let perSecond: Double
    /// Peers tracked at once.
    public let maxPeers: Int

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
        var suppressed: Int
    }

    private let buckets = Mutex<[String: Bucket]>([:])

    /// The budget every daemon log handler shares.
    public static let shared = PeerLogBudget()

    /// A budget of `burst` lines at once and `perSecond` after that, per peer.
    public init(burst: Double = 30, perSecond: Double = 1, maxPeers: Int = 4_096) {
        self.burst = burst
        self.perSecond = perSecond
        self.maxPeers = maxPeers
    }

    /// Whether a line about `peer` may be written at `now`: nil when it must be left out, else how many lines about
    /// that peer were left out before it (to say so on this line).
    public func admit(_ peer: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[peer] ?? Bucket(tokens: burst, updated: now, suppressed: 0)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + max(0, seconds) * perSecond)
            bucket.updated = now
            let result: Int?
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                result = bucket.suppressed
                bucket.suppressed = 0
            } else {
                bucket.suppressed += 1
                result = nil
            }
            if buckets[peer] == nil, buckets.count >= maxPeers {
                // Forget the peers with the most tokens left: those that caused the fewest lines lately.
                let quiet = buckets.sorted { $0.value.tokens > $1.value.tokens }.prefix(maxPeers / 4).map(\.key)
                for key in quiet { buckets[key] = nil }
            }
            buckets[peer] = bucket
            return result
        }
    }
}
