/// How long discovery waits before it tries to reach avahi-daemon again: exponential backoff with jitter.
public struct RetryPolicy: Sendable, Hashable {
    /// The delay before the first retry.
    public var initialDelay: Duration
    /// The largest delay (before jitter).
    public var maximumDelay: Duration
    /// How much each delay grows.
    public var multiplier: Double
    /// The fraction by which a delay is randomly shortened or lengthened (0.2 = ±20 %).
    public var jitter: Double

    /// A policy. Negative values are treated as zero; a multiplier below 1 as 1.
    public init(initialDelay: Duration, maximumDelay: Duration, multiplier: Double, jitter: Double) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// 0.5 s, doubling up to 10 s, ±20 % jitter.
    public static let `default` = RetryPolicy(
        initialDelay: .milliseconds(500), maximumDelay: .seconds(10), multiplier: 2, jitter: 0.2)

    /// The delay before retry number `attempt` (0 for the first retry), jittered with `random` in 0...1.
    public func delay(attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let maximum = max(maximumDelay, .zero)
        var base = max(initialDelay, .zero)
        let growth = max(multiplier, 1)
        for _ in 0..<max(attempt, 0) where base < maximum { base = base * growth }
        base = min(base, maximum)
        let spread = min(max(jitter, 0), 1)
        let factor = 1 + spread * (2 * min(max(random, 0), 1) - 1)
        return base * factor
    }
}
