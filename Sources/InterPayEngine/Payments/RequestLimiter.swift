import InterPayCore

/// Admits or refuses incoming `request` frames per peer (PROTOCOL.md §13.1, §16): at most `maxPending` of a peer's
/// requests may be pending here at once, and at most `maxPerMinute` requests of a peer are admitted in any minute.
///
/// The rate is a token bucket per peer: it holds up to `maxPerMinute` requests and refills at `maxPerMinute` per 60
/// seconds, so a burst of a whole minute's worth is admitted and then one more every `60 / maxPerMinute` seconds.
/// Only admitted requests use the budget: a peer resending refused requests does not lock itself out for longer.
/// Peers that are not paired also share one budget, since a fresh key costs nothing: all their requests together
/// may be pending `maxPendingUnpaired` at once and arrive `maxPerMinuteUnpaired` a minute (by default ten times and
/// twice the per-peer limits), and `maxPerDayUnpaired` a day (as many as may be pending at once). Twenty fresh keys
/// thus get what two or so peers would, not twenty times as much; and since payments are kept (PROTOCOL.md §9.2),
/// the day's budget is what bounds how fast keys no one paired can grow the ledger: requests that expire within
/// seconds free their pending slots at once, and before it ~1,200 a minute were stored, 1.4 KB each.
///
/// Requests that expire unanswered are bounded per peer as well, paired or not: at most `maxExpiredPerDay` of a
/// peer's requests may expire here unanswered in a day (by default ten times the pending limit); beyond that the
/// peer's requests are refused until the budget refills. A paired peer sending requests that live two seconds could
/// otherwise add ~600 rows a minute that the pending limits never see (each frees its slot at once), ~1.3 GB a day.
///
/// Pure: the caller says how many of the peer's requests are pending and what time it is (the engine counts them in
/// the same transaction as the request's step, so the count is exact). State is in memory only; a restart gives
/// every peer a full budget.
public struct RequestLimiter: Sendable {
    /// The limits, as configured (`limits.max_pending_per_peer`, `limits.max_requests_per_minute`).
    public struct Limits: Sendable, Equatable {
        /// Pending incoming requests per peer at most.
        public var maxPending: Int = Self.defaultMaxPending
        /// Requests per peer per minute at most.
        public var maxPerMinute: Int = Self.defaultMaxPerMinute

        /// The default of `maxPending`.
        public static let defaultMaxPending = 100
        /// The default of `maxPerMinute`.
        public static let defaultMaxPerMinute = 600
        /// Limits as configured.
        public init(maxPending: Int = Self.defaultMaxPending, maxPerMinute: Int = Self.defaultMaxPerMinute) {
            self.maxPending = maxPending
            self.maxPerMinute = maxPerMinute
        }
        /// Pending incoming requests of all peers that are not paired together at most.
        public var maxPendingUnpaired: Int { maxPending.saturatingTimes(10) }
        /// Requests of all peers that are not paired together per minute at most.
        public var maxPerMinuteUnpaired: Int { maxPerMinute.saturatingTimes(2) }
        /// Requests of all peers that are not paired together per day at most.
        public var maxPerDayUnpaired: Int { maxPendingUnpaired }
        /// A peer's requests that may expire here unanswered per day at most.
        public var maxExpiredPerDay: Int { maxPending.saturatingTimes(10) }
    }

    /// Why a request was refused.
    enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The peer has `limit` requests pending here already.
        case tooManyPending(limit: Int)
        /// The peer sent `limit` requests in the last minute already.
        case tooManyRequests(limit: Int)
        /// Peers that are not paired have `limit` requests pending here already, all together.
        case tooManyPendingUnpaired(limit: Int)
        /// Peers that are not paired sent `limit` requests in the last minute already, all together.
        case tooManyRequestsUnpaired(limit: Int)
        /// Peers that are not paired sent `limit` requests in the last day already, all together.
        case tooManyRequestsUnpairedToday(limit: Int)
        /// `limit` of the peer's requests expired here unanswered in the last day already.
        case tooManyExpiredToday(limit: Int)

        /// The text of the `error` frame and of the log line.
        var description: String {
            switch self {
            case .tooManyPending(let limit): "too many pending requests from this peer (limit \(limit))"
            case .tooManyRequests(let limit): "too many requests from this peer (limit \(limit) per minute)"
            case .tooManyPendingUnpaired(let limit):
                "too many pending requests from peers not paired (limit \(limit) together)"
            case .tooManyRequestsUnpaired(let limit):
                "too many requests from peers not paired (limit \(limit) per minute together)"
            case .tooManyRequestsUnpairedToday(let limit):
                "too many requests from peers not paired today (limit \(limit) a day together); pair to be let in"
            case .tooManyExpiredToday(let limit):
                "too many of this peer's requests expired unanswered today (limit \(limit) a day)"
            }
        }

        /// Which limit, so that the log lines of each are throttled on their own.
        var kind: Int {
            switch self {
            case .tooManyPending: 0
            case .tooManyRequests: 1
            case .tooManyPendingUnpaired: 2
            case .tooManyRequestsUnpaired: 3
            case .tooManyRequestsUnpairedToday: 4
            case .tooManyExpiredToday: 5
            }
        }
    }

    /// The outcome for one request: nil to admit it, else why not and whether to log it (the first refusal of a
    /// peer for each limit in a minute is logged with how many went unlogged before it; the rest are only counted).
    struct Verdict: Sendable, Equatable {
        let refusal: Refusal
        /// nil: do not log; else the number of refusals of this peer left unlogged since the last logged one.
        let log: Int?
    }

    private struct Bucket: Sendable {
        var tokens: Double
        var updatedAt: Timestamp
        /// Per limit (`Refusal.kind`), refusals not logged yet and when one was last logged.
        var refusalsUnlogged: [Int: Int] = [:]
        var lastLogged: [Int: Timestamp] = [:]
    }

    let limits: Limits
    private var buckets: [PeerID: Bucket] = [:]
    /// The budget all peers that are not paired share, by the minute and by the day.
    private var unpairedBucket: Bucket?
    private var unpairedDayBucket: Bucket?
    /// Per peer, the day's budget of requests that may expire unanswered; a peer none of whose requests expired has
    /// no entry.
    private var expiredBuckets: [PeerID: Bucket] = [:]

    /// Beyond this many peers tracked, the peers whose budget is full again are forgotten, and if that is not enough
    /// the least recently seen, down to half this many: the map never holds more, whatever the number of keys.
    static let trackedPeers = 1_024

    /// A limiter with `limits`.
    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Decides on one request from `peer`, who has `pending` requests pending here (count only new payments: a
    /// request for a payment already stored adds none). For a peer that is not paired, `unpairedPending` is how many
    /// requests of all such peers are pending; nil for a paired peer, which the shared budget does not concern.
    /// Admitting a request uses one unit of the peer's budget (and of the shared one).
    /// `dueUnanswered` of the peer's requests are past expiry but not yet expired by the expiry check: they are
    /// counted as expired unanswered already.
    mutating func admit(
        from peer: PeerID, pending: Int, dueUnanswered: Int = 0, unpairedPending: Int? = nil, now: Timestamp
    ) -> Verdict? {
        var bucket = refilled(buckets[peer], capacity: limits.maxPerMinute, now: now)
        var shared = unpairedPending.map { _ in
            refilled(unpairedBucket, capacity: limits.maxPerMinuteUnpaired, now: now)
        }
        var sharedDay = unpairedPending.map { _ in
            refilled(unpairedDayBucket, capacity: limits.maxPerDayUnpaired, period: 86_400, now: now)
        }
        let expiredDay = expiredBuckets[peer].map {
            refilled($0, capacity: limits.maxExpiredPerDay, period: 86_400, now: now)
        }
        let refusal: Refusal? =
            if let tokens = expiredDay?.tokens, tokens - Double(dueUnanswered) < 1 {
                .tooManyExpiredToday(limit: limits.maxExpiredPerDay)
            } else if pending >= limits.maxPending {
                .tooManyPending(limit: limits.maxPending)
            } else if bucket.tokens < 1 {
                .tooManyRequests(limit: limits.maxPerMinute)
            } else if let unpairedPending, unpairedPending >= limits.maxPendingUnpaired {
                .tooManyPendingUnpaired(limit: limits.maxPendingUnpaired)
            } else if let tokens = shared?.tokens, tokens < 1 {
                .tooManyRequestsUnpaired(limit: limits.maxPerMinuteUnpaired)
            } else if let tokens = sharedDay?.tokens, tokens < 1 {
                .tooManyRequestsUnpairedToday(limit: limits.maxPerDayUnpaired)
            } else {
                nil
            }
        guard let refusal else {
            bucket.tokens -= 1
            shared?.tokens -= 1
            sharedDay?.tokens -= 1
            if let shared { unpairedBucket = shared }
            if let sharedDay { unpairedDayBucket = sharedDay }
            store(bucket, for: peer, now: now)
            return nil
        }
        var log: Int?
        let kind = refusal.kind
        if let last = bucket.lastLogged[kind], now.secondsSince1970 - last.secondsSince1970 < 60 {
            bucket.refusalsUnlogged[kind, default: 0] += 1
        } else {
            log = bucket.refusalsUnlogged[kind, default: 0]
            bucket.refusalsUnlogged[kind] = 0
            bucket.lastLogged[kind] = now
        }
        store(bucket, for: peer, now: now)
        return Verdict(refusal: refusal, log: log)
    }

    /// Whether any of `peer`'s requests expired here unanswered within the budget's day (a peer without one has its
    /// whole budget, whatever is due).
    func hasExpired(from peer: PeerID) -> Bool { expiredBuckets[peer] != nil }

    /// One of `peer`'s requests expired here unanswered: it uses one unit of the peer's day budget of those.
    mutating func expiredUnanswered(from peer: PeerID, now: Timestamp) {
        var bucket = refilled(expiredBuckets[peer], capacity: limits.maxExpiredPerDay, period: 86_400, now: now)
        bucket.tokens = max(0, bucket.tokens - 1)
        expiredBuckets[peer] = bucket
        guard expiredBuckets.count > Self.trackedPeers else { return }
        // A full budget is the same as none; beyond the bound the fullest go first (the emptiest are the ones that
        // matter), down to half of it.
        let capacity = Double(limits.maxExpiredPerDay)
        let entries = expiredBuckets.map {
            (
                $0.key,
                refilled(
                    $0.value, capacity: limits.maxExpiredPerDay,
                    period: 86_400, now: now)
            )
        }.filter { $0.1.tokens < capacity }
        let kept = entries.sorted { $0.1.tokens < $1.1.tokens }.prefix(Self.trackedPeers / 2)
        expiredBuckets = Dictionary(uniqueKeysWithValues: kept.map { ($0.0, $0.1) })
        expiredBuckets[peer] = bucket
    }

    /// How many requests `peer` may send now before the rate limit refuses one (for tests and diagnostics).
    func budget(of peer: PeerID, now: Timestamp) -> Int {
        Int(refilled(buckets[peer], capacity: limits.maxPerMinute, now: now).tokens)
    }

    /// How many peers' budgets are held in memory.
    var trackedCount: Int { buckets.count }

    /// `bucket` (a full one if nil) refilled for the time since it was last used, at `limit` per `period` seconds.
    private func refilled(_ bucket: Bucket?, capacity limit: Int, period: Double = 60, now: Timestamp) -> Bucket {
        let capacity = Double(limit)
        guard var bucket else { return Bucket(tokens: capacity, updatedAt: now) }
        // A clock set back gives nothing; a clock set forward at most a full bucket.
        let elapsed = max(0, now.secondsSince1970 - bucket.updatedAt.secondsSince1970)
        bucket.tokens = min(capacity, bucket.tokens + Double(elapsed) * capacity / period)
        bucket.updatedAt = now
        return bucket
    }

    private mutating func store(_ bucket: Bucket, for peer: PeerID, now: Timestamp) {
        buckets[peer] = bucket
        guard buckets.count > Self.trackedPeers else { return }
        // A full bucket with no refusal to report is the same as no bucket.
        let capacity = Double(limits.maxPerMinute)
        buckets = buckets.filter { entry in
            entry.key == peer || entry.value.refusalsUnlogged.values.contains { $0 > 0 }
                || refilled(entry.value, capacity: limits.maxPerMinute, now: now).tokens < capacity
        }
        let half = Self.trackedPeers / 2
        guard buckets.count > half else { return }
        // Fresh keys that keep being refused (each with a refusal still to report) or keep their budget in use would
        // otherwise stay for good, and the map would be filtered again on every request. The least recently seen go,
        // their unlogged refusals with them, down to half the bound: the next pruning is at least `half` new peers
        // away. A forgotten peer gets a full budget again; peers not paired still share theirs (`unpairedBucket`).
        let kept = buckets.sorted { $0.value.updatedAt > $1.value.updatedAt }.prefix(half)
        buckets = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        buckets[peer] = bucket
    }
}

extension Int {
    /// `self × factor`, or `Int.max` where that overflows (limits configured as "no limit").
    fileprivate func saturatingTimes(_ factor: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: factor)
        return overflow ? .max : product
    }
}
