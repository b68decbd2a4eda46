import InterPayMetrics
import Synchronization

/// Counts the inbound connections that have not finished TLS and `hello` yet, and refuses new ones beyond a limit,
/// so that a flood of idle or slow connections cannot use up the daemon before any peer is authenticated
/// (PROTOCOL.md §16). One source address may hold at most `perAddressLimit` of the places, so that one host cannot
/// hold them all and keep every other peer out for a handshake timeout at a time. It also counts the inbound
/// connections open in any stage (handshake, session, or closing, which may wait a moment for the peer's TLS
/// close_notify) and refuses new ones beyond `openLimit`, so that descriptors stay bounded however fast sessions are
/// opened and evicted. It also throttles the log lines about refused and timed-out connections.
final class UnauthenticatedConnections: Sendable {
    /// One admitted connection's place in the count, given back exactly once: when its handshake completes or when
    /// it closes, whichever comes first.
    final class Slot: Sendable {
        private let owner: UnauthenticatedConnections
        private let address: String
        private let released = Atomic<Bool>(false)
        private let isClosed = Atomic<Bool>(false)

        fileprivate init(owner: UnauthenticatedConnections, address: String) {
            self.owner = owner
            self.address = address
        }

        /// Gives the place back; later calls do nothing.
        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            owner.state.withLock { state in
                state.count -= 1
                if let held = state.perAddress[address], held > 1 {
                    state.perAddress[address] = held - 1
                } else {
                    state.perAddress.removeValue(forKey: address)
                }
            }
        }

        /// The connection closed: gives its place among the open connections back (and its unauthenticated place,
        /// if it still holds it); later calls do nothing.
        func closed() {
            release()
            guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            owner.state.withLock { $0.open -= 1 }
        }
    }

    /// The events about connections before authentication that are logged, each throttled on its own.
    enum Event: Hashable, Sendable {
        /// A connection refused because `limit` connections were unauthenticated already.
        case refused
        /// A connection refused because `openLimit` inbound connections were open.
        case refusedOpen
        /// A connection refused because its address held `perAddressLimit` places already.
        case refusedForAddress
        /// A session evicted to make room for a new one at the session limit.
        case evicted
        /// A session refused at the session limit, with no session to evict.
        case sessionLimit
        /// A session evicted to make room for a new one from its address, which held its share of sessions.
        case evictedForAddress
        /// A session refused because its address held its share of sessions, with none of them to evict.
        case addressSessionLimit
        /// A connection closed at the handshake deadline.
        case timedOut
        /// A connection that announced an oversize frame instead of `hello`.
        case oversize

        /// The limit of SECURITY.md the event is a hit of.
        var limit: Limit {
            switch self {
            case .refused, .refusedOpen, .refusedForAddress: .unauthenticated
            case .evicted, .sessionLimit: .sessions
            case .evictedForAddress, .addressSessionLimit: .sessionsPerAddress
            case .timedOut: .handshakeTimeout
            case .oversize: .frameBytes
            }
        }
    }

    private struct State {
        var count = 0
        var open = 0
        var perAddress: [String: Int] = [:]
        var throttles: [Event: LogThrottle] = [:]
    }

    /// The most connections that may be unauthenticated at once.
    let limit: Int
    /// The most places one source address may hold.
    let perAddressLimit: Int
    /// The most inbound connections open at once, in any stage.
    let openLimit: Int
    private let state = Mutex(State())

    /// A counter admitting at most `limit` unauthenticated connections at once, `perAddressLimit` from one address
    /// (by default all of them).
    init(limit: Int, perAddressLimit: Int? = nil, openLimit: Int = .max) {
        self.limit = limit
        self.perAddressLimit = perAddressLimit ?? limit
        self.openLimit = openLimit
    }

    /// Why `admit(from:)` refused a connection.
    enum Refusal: Error {
        /// `openLimit` inbound connections are open already.
        case open
        /// `limit` connections are unauthenticated already.
        case full
        /// The address holds `perAddressLimit` places already.
        case addressFull
    }

    /// How many inbound connections are open now (admitted and not yet closed).
    var openCount: Int { state.withLock { $0.open } }

    /// How many connections hold a place now.
    var count: Int { state.withLock { $0.count } }

    /// How many places `address` holds now.
    func count(from address: String) -> Int { state.withLock { $0.perAddress[address] ?? 0 } }

    /// A place for a new connection, or nil when `limit` connections are unauthenticated already.
    func admit() -> Slot? {
        try? admit(from: "").get()  // Nil is the answer here: the reason is not needed.
    }

    /// A place for a new connection from `address` (its IP address, without the port), or why there is none.
    func admit(from address: String) -> Result<Slot, Refusal> {
        let refusal = state.withLock { state -> Refusal? in
            guard state.open < openLimit else { return .open }
            guard state.count < limit else { return .full }
            let held = state.perAddress[address] ?? 0
            guard held < perAddressLimit else { return .addressFull }
            state.count += 1
            state.open += 1
            state.perAddress[address] = held + 1
            return nil
        }
        if let refusal { return .failure(refusal) }
        return .success(Slot(owner: self, address: address))
    }

    /// Records one `event`; nil when it is not to be logged (a flood cannot fill the log), else how many such
    /// events went unlogged before it.
    ///
    /// Every event passes here, so this also counts the limit it hit (`InterPayMetric.limitHits`).
    func shouldLog(_ event: Event, at now: ContinuousClock.Instant = .now) -> Int? {
        event.limit.hit()
        return state.withLock { $0.throttles[event, default: LogThrottle()].record(at: now) }
    }
}
