import InterPayCore
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
        var tokens: TokenBucket
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
            var bucket =
                buckets[peer]
                ?? Bucket(tokens: TokenBucket(capacity: burst, perSecond: perSecond, now: now), suppressed: 0)
            let result: Int?
            if bucket.tokens.take(now: now) {
                result = bucket.suppressed
                bucket.suppressed = 0
            } else {
                bucket.suppressed += 1
                result = nil
            }
            if buckets[peer] == nil, buckets.count >= maxPeers {
                // Forget the peers with the most tokens left: those that caused the fewest lines lately.
                let quiet = buckets.sorted { $0.value.tokens.tokens > $1.value.tokens.tokens }.prefix(maxPeers / 4)
                for (key, _) in quiet { buckets[key] = nil }
            }
            buckets[peer] = bucket
            return result
        }
    }
}
