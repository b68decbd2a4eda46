/// Decides which occurrences of a repeated event are worth a log line, so that a flood cannot fill the log.
///
/// The first occurrence is logged; further ones within `interval` are only counted, and the next one logged after
/// the interval reports how many were left out. Pure: the caller passes the time.
public struct LogThrottle: Sendable {
    /// The shortest time between two logged occurrences.
    public let interval: Duration
    private var lastLogged: ContinuousClock.Instant?
    private var suppressed = 0

    /// A throttle that logs at most once per `interval`.
    public init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Records one occurrence at `now`. Returns nil when it must not be logged, or else how many occurrences were
    /// left out since the last logged one.
    public mutating func record(at now: ContinuousClock.Instant) -> Int? {
        if let lastLogged, now - lastLogged < interval {
            suppressed += 1
            return nil
        }
        lastLogged = now
        defer { suppressed = 0 }
        return suppressed
    }
}
