/// Whether discovery is connected to avahi-daemon, and what an outage and a reconnection bring: the pure decider
/// under `DiscoverySession`, which carries out its actions (closing the refs, logging, the timers, the events).
///
/// The rules:
/// - A connection is tried only while idle or waiting after an outage, and never once stopped.
/// - An outage (an attempt that failed, or an operation that failed for good while connected) closes everything and
///   retries after `RetryPolicy.delay(attempt:)`, the attempt counting the outages since the connection was last
///   stable.
/// - The first outage since the connection was last stable is a warning; the later ones are logged at debug level.
/// - `unavailable` is reported once per outage, however many attempts fail; `available` after every connection,
///   noting whether an outage came before it (which is logged as a notice).
/// - A connection that lasts `DiscoverySession.stabilityPeriod` starts the count and the warning over.
/// - Once stopped, nothing happens any more.
struct DiscoveryConnection: Equatable {
    /// Where the connection stands.
    enum Phase: Equatable {
        /// Not tried yet.
        case idle
        /// Browsing (and advertising).
        case running
        /// After an outage, until the next attempt.
        case waiting
        /// For good.
        case stopped
    }

    /// What the session does.
    enum Action: Equatable {
        /// Close every ref; keep only the reported peers.
        case tearDown
        /// Log the outage, as a warning or at debug level, and try again after the delay of retry `attempt`.
        case retryLater(attempt: Int, warning: Bool)
        /// Report `unavailable`.
        case reportUnavailable
        /// Report `available`; `afterOutage`: `unavailable` was reported before.
        case reportAvailable(afterOutage: Bool)
        /// See whether the connection lasts (`lasted()` after the stability period).
        case watchStability
    }

    private(set) var phase = Phase.idle
    /// Outages since the connection was last stable.
    private(set) var failedAttempts = 0
    /// Whether `unavailable` was reported and `available` not yet again.
    private(set) var isUnavailable = false
    /// Whether an outage was logged as a warning since the connection was last stable.
    private(set) var hasWarned = false

    /// Whether an attempt to connect may start now.
    var canConnect: Bool { phase == .idle || phase == .waiting }

    /// An attempt to connect succeeded.
    mutating func connected() -> [Action] {
        guard canConnect else { return [] }
        phase = .running
        let afterOutage = isUnavailable
        isUnavailable = false
        return [.watchStability, .reportAvailable(afterOutage: afterOutage)]
    }

    /// An attempt failed, or an operation failed for good while connected.
    mutating func failed() -> [Action] {
        guard phase != .stopped else { return [] }
        phase = .waiting
        let attempt = failedAttempts
        failedAttempts += 1
        var actions: [Action] = [.tearDown, .retryLater(attempt: attempt, warning: !hasWarned)]
        hasWarned = true
        if !isUnavailable {
            isUnavailable = true
            actions.append(.reportUnavailable)
        }
        return actions
    }

    /// The stability period since a connection passed: if it is still up, outages count from the start again.
    mutating func lasted() -> [Action] {
        guard phase == .running else { return [] }
        failedAttempts = 0
        hasWarned = false
        return []
    }

    /// Discovery stops for good.
    mutating func stop() -> [Action] {
        guard phase != .stopped else { return [] }
        phase = .stopped
        return [.tearDown]
    }
}
