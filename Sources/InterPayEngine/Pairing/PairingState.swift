public import InterPayCore

/// Where pairing with one peer stands, for `peers` and `pair`.
public struct PairingStatus: Sendable, Hashable {
    /// The phase as the user sees it.
    public var phase: PairingPhase
    /// The code to compare and confirm, while it is valid.
    public var code: PairingCode?
    /// When the code or the attempt expires, or when the lockout ends.
    public var until: Timestamp?
    /// Failed attempts that count toward the lockout.
    public var failures = 0

    /// A status.
    public init(phase: PairingPhase, code: PairingCode? = nil, until: Timestamp? = nil, failures: Int = 0) {
        self.phase = phase
        self.code = code
        self.until = until
        self.failures = failures
    }

    /// The status of `machine` at `now`, given when the peer last asked to pair while the local user had not started.
    static func of(_ machine: PairingMachine, requestedAt: Timestamp?, now: Timestamp) -> PairingStatus {
        let failures = machine.lockout.failures
        switch machine.phase {
        case .idle:
            if let requestedAt, now < requestedAt.adding(seconds: PairingMachine.codeLifetime) {
                return PairingStatus(phase: .requested, failures: failures)
            }
            return PairingStatus(phase: .idle, failures: failures)
        case .committed(_, let expiresAt):
            return PairingStatus(phase: .waiting, until: expiresAt, failures: failures)
        case .revealed(_, _, let expiresAt):
            return PairingStatus(phase: .exchanging, until: expiresAt, failures: failures)
        case .codeReady(_, _, let code, let expiresAt):
            return expiresAt > now
                ? PairingStatus(phase: .code, code: code, until: expiresAt, failures: failures)
                : PairingStatus(phase: .idle, failures: failures)
        case .locked(let until):
            return until > now ? PairingStatus(phase: .locked, until: until) : PairingStatus(phase: .idle)
        }
    }
}

/// Pairing as the engine keeps it between steps: one `PairingMachine` per peer with an attempt, a code or a lock in
/// play (a machine left idle is forgotten at the next tick: its lockout is in the ledger), the commits' rate limit,
/// the peers that asked to pair, and the notices' budget. Read and written inside steps (which run one at a time);
/// read outside them only for a status.
struct PairingState: Sendable {
    var machines: [PeerID: PairingMachine] = [:]
    var limiter = PairingRateLimiter()
    /// When each peer last asked to pair while the local user had not started: shown for a code lifetime.
    var requests: [PeerID: Timestamp] = [:]
    /// Reports of requests to pair, all peers together (log line and `watch` event): 10 at once, then one per 6 s.
    var notices = NoticeBudget()
    /// The peers the link was told have an attempt in progress.
    var protected: Set<PeerID> = []

    /// How often a peer's request to pair is reported at most.
    static let requestNoticeInterval: Int64 = 10

    /// The daemon-wide budget of "wants to pair" notices: `burst` at once, then one per `interval` seconds; pure.
    struct NoticeBudget {
        /// Notices at once.
        var burst: Double = 10
        /// Seconds for the budget to regain a notice.
        var interval: Double = 6
        private var bucket: TokenBucket?
        private var suppressed = 0

        /// Nil when a notice at `now` is to be held back; else how many were held back before it.
        mutating func admit(now: ContinuousClock.Instant) -> Int? {
            var tokens = bucket ?? TokenBucket(capacity: burst, perSecond: 1 / interval, now: now)
            defer { bucket = tokens }
            guard tokens.take(now: now) else {
                suppressed += 1
                return nil
            }
            defer { suppressed = 0 }
            return suppressed
        }
    }
}
