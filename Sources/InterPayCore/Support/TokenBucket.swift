/// A token bucket: up to `capacity` at once, refilled at `perSecond`. Pure: the caller gives the time.
///
/// Used where a peer can push work: pairing commits, log lines a peer causes.
public struct TokenBucket: Sendable, Hashable {
    /// The most tokens it holds.
    public let capacity: Double
    /// Tokens regained per second.
    public let perSecond: Double
    /// Tokens now (as of the last `refill`).
    public private(set) var tokens: Double
    private var updated: ContinuousClock.Instant

    /// A full bucket at `now`.
    public init(capacity: Double, perSecond: Double, now: ContinuousClock.Instant) {
        self.capacity = capacity
        self.perSecond = perSecond
        self.tokens = capacity
        self.updated = now
    }

    /// Adds what `now` brings since the last refill (a clock that goes back adds nothing).
    public mutating func refill(now: ContinuousClock.Instant) {
        let elapsed = now - updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(capacity, tokens + max(0, seconds) * perSecond)
        updated = now
    }

    /// Refills, then takes one token if there is one.
    public mutating func take(now: ContinuousClock.Instant) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
