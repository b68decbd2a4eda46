/// Exponential backoff with jitter for reconnect attempts.
public struct Backoff: Sendable, Hashable {
    /// The first delay.
    public var initial: Duration
    /// The largest delay.
    public var maximum: Duration
    /// How much each delay grows.
    public var multiplier: Double
    /// The fraction by which a delay is randomly shortened or lengthened (0.2 = ±20 %).
    public var jitter: Double

    /// A policy; the defaults suit reconnecting to a LAN peer.
    public init(
        initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30), multiplier: Double = 2,
        jitter: Double = 0.2
    ) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The delay before retry number `attempt` (0 for the first retry), jittered with `random` in 0...1.
    public func delay(attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let base = min(initial * pow(multiplier, Double(min(attempt, 60))), maximum)
        return base * (1 + jitter * (2 * random - 1))
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= base }
        return result
    }
}
