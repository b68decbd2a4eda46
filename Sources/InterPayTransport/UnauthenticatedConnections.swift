import Synchronization

/// Counts the inbound connections that have not finished TLS and `hello` yet, and refuses new ones beyond a limit,
/// so that a flood of idle or slow connections cannot use up the daemon before any peer is authenticated
/// (PROTOCOL.md §16). One source address may hold at most `perAddressLimit` of the places, so that one host cannot
/// hold them all and keep every other peer out for a handshake timeout at a time. It also throttles the log lines about refused and timed-out connections.
final class UnauthenticatedConnections: Sendable {
    /// One admitted connection's place in the count, given back exactly once: when its handshake completes or when
    /// it closes, whichever comes first.
    final class Slot: Sendable {
        private let owner: UnauthenticatedConnections
        private let address: String
        private let released = Atomic<Bool>(false)

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
    }

    /// The events about connections before authentication that are logged, each throttled on its own.
    enum Event: Hashable, Sendable {
        /// A connection refused because `limit` connections were unauthenticated already.
        case refused
        /// A connection refused because its address held `perAddressLimit` places already.
        case refusedForAddress
        /// A session evicted to make room for a new one at the session limit.
        case evicted
        /// A session refused at the session limit, with no session to evict.
        case sessionLimit
        /// A connection closed at the handshake deadline.
        case timedOut
        /// A connection that announced an oversize frame instead of `hello`.
        case oversize
    }

    private struct State {
        var count = 0
        var perAddress: [String: Int] = [:]
        var throttles: [Event: LogThrottle] = [:]
    }

    /// The most connections that may be unauthenticated at once.
    let limit: Int
    /// The most places one source address may hold.
    let perAddressLimit: Int
    private let state = Mutex(State())

    /// A counter admitting at most `limit` unauthenticated connections at once, `perAddressLimit` from one address
    /// (by default all of them).
    init(limit: Int, perAddressLimit: Int? = nil) {
        self.limit = limit
        self.perAddressLimit = perAddressLimit ?? limit
    }

    /// Why `admit(from:)` refused a connection.
    enum Refusal: Error {
        /// `limit` connections are unauthenticated already.
        case full
        /// The address holds `perAddressLimit` places already.
        case addressFull
    }

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
            guard state.count < limit else { return .full }
            let held = state.perAddress[address] ?? 0
            guard held < perAddressLimit else { return .addressFull }
            state.count += 1
            state.perAddress[address] = held + 1
            return nil
        }
        if let refusal { return .failure(refusal) }
        return .success(Slot(owner: self, address: address))
    }

    /// Records one `event`; nil when it is not to be logged (a flood cannot fill the log), else how many such
    /// events went unlogged before it.
    func shouldLog(_ event: Event, at now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { $0.throttles[event, default: LogThrottle()].record(at: now) }
    }
}
