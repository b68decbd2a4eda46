import Synchronization

/// Counts the inbound connections that have not finished TLS and `hello` yet, and refuses new ones beyond a limit,
/// so that a flood of idle or slow connections cannot use up the daemon before any peer is authenticated
/// (PROTOCOL.md §16). It also throttles the log lines about refused and timed-out connections.
final class UnauthenticatedConnections: Sendable {
    /// One admitted connection's place in the count, given back exactly once: when its handshake completes or when
    /// it closes, whichever comes first.
    final class Slot: Sendable {
        private let owner: UnauthenticatedConnections
        private let released = Atomic<Bool>(false)

        fileprivate init(owner: UnauthenticatedConnections) {
            self.owner = owner
        }

        /// Gives the place back; later calls do nothing.
        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            owner.state.withLock { $0.count -= 1 }
        }
    }

    /// The events about connections before authentication that are logged, each throttled on its own.
    enum Event: Hashable, Sendable {
        /// A connection refused because `limit` connections were unauthenticated already.
        case refused
        /// A connection closed at the handshake deadline.
        case timedOut
        /// A connection that announced an oversize frame instead of `hello`.
        case oversize
    }

    private struct State {
        var count = 0
        var throttles: [Event: LogThrottle] = [:]
    }

    /// The most connections that may be unauthenticated at once.
    let limit: Int
    private let state = Mutex(State())

    /// A counter admitting at most `limit` unauthenticated connections at once.
    init(limit: Int) {
        self.limit = limit
    }

    /// How many connections hold a place now.
    var count: Int { state.withLock { $0.count } }

    /// A place for a new connection, or nil when `limit` connections are unauthenticated already.
    func admit() -> Slot? {
        let admitted = state.withLock { state -> Bool in
            guard state.count < limit else { return false }
            state.count += 1
            return true
        }
        return admitted ? Slot(owner: self) : nil
    }

    /// Records one `event`; nil when it is not to be logged (a flood cannot fill the log), else how many such
    /// events went unlogged before it.
    func shouldLog(_ event: Event, at now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { $0.throttles[event, default: LogThrottle()].record(at: now) }
    }
}
