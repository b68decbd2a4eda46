public import CoreMetrics

/// Every metric the daemon exports, with its kind, its labels and what it counts: the one catalogue the modules emit
/// through, the `/metrics` endpoint describes (`# HELP`) and the README lists.
///
/// Label values come only from the enumerations beside it (`Limit`, `Role`, …), never from a peer's or a local
/// client's text, so every label set is bounded.
public enum InterPayMetric: String, CaseIterable, Sendable {
    // MARK: The ledger and the engine
    /// Ledger transactions committed (each a batch of steps, one disk flush).
    case ledgerCommits = "interpay_ledger_commits_total"
    /// Ledger transactions that failed (nothing of their steps was stored).
    case ledgerCommitFailures = "interpay_ledger_commit_failures_total"
    /// Time of one ledger transaction, its disk flush included.
    case ledgerCommitSeconds = "interpay_ledger_commit_seconds"
    /// Steps per ledger transaction.
    case ledgerBatchSteps = "interpay_ledger_batch_steps"
    /// Engine steps run (commands, frames, session events, expiry checks).
    case engineSteps = "interpay_engine_steps_total"
    /// Payments entering a state, by this side's role (`role`, `state`); `pending` counts payments created.
    case payments = "interpay_payments_total"
    /// Steps waiting for a ledger transaction now.
    case engineQueuedSteps = "interpay_engine_queued_steps"
    /// Peers whose frames wait in a lane of their own now.
    case engineLanes = "interpay_engine_lanes"

    // MARK: Peers
    /// Sessions up now, by `trust` (paired, unpaired) and `direction` (inbound, outbound).
    case sessions = "interpay_sessions"
    /// Connections that became sessions.
    case handshakes = "interpay_handshakes_total"
    /// Connections that ended before a session, by `reason`.
    case handshakeRefusals = "interpay_handshake_refusals_total"
    /// Peers discovery or the configuration names to keep a session with, now.
    case discoveryTargets = "interpay_discovery_targets"
    /// Outbound connections begun, by `result` once known (`session`, `failed`).
    case dials = "interpay_dials_total"
    /// Pairing attempts by `outcome` (started, paired, failed, locked).
    case pairing = "interpay_pairing_total"
    /// A limit of SECURITY.md hit, by `limit`: what was refused, closed or dropped because of it.
    case limitHits = "interpay_limit_hits_total"
    /// Log lines a peer caused that its budget held back.
    case logLinesSuppressed = "interpay_log_lines_suppressed_total"
    /// Frames of a session that did not decode, by `error` (the protocol's error classes: `invalid-field` counts a
    /// memo, reason, category or name over its length limit among others).
    case undecodableFrames = "interpay_undecodable_frames_total"

    // MARK: Rates
    /// Age of the exchange rates in use, in seconds (absent before any).
    case ratesAge = "interpay_rates_age_seconds"
    /// Exchange-rate fetches that failed.
    case ratesFetchFailures = "interpay_rates_fetch_failures_total"

    // MARK: The web app
    /// Web app requests answered, by `status` class (2xx, 3xx, 4xx, 5xx) and `route` (the app's own route, or
    /// `other`).
    case webRequests = "interpay_web_requests_total"

    // MARK: The process
    /// Resident memory, in bytes.
    case residentBytes = "interpay_process_resident_bytes"
    /// Open file descriptors.
    case openDescriptors = "interpay_process_open_fds"
    /// Threads.
    case threads = "interpay_process_threads"

    /// The name as exported.
    public var name: String { rawValue }

    /// What the metric is, in the words of its `# HELP` line.
    public var help: String {
        switch self {
        case .ledgerCommits: "Ledger transactions committed (a batch of steps, one disk flush each)."
        case .ledgerCommitFailures: "Ledger transactions that failed; none of their steps was stored."
        case .ledgerCommitSeconds: "Duration of one ledger transaction, disk flush included."
        case .ledgerBatchSteps: "Steps per ledger transaction."
        case .engineSteps: "Engine steps run: commands, frames, session events, expiry checks."
        case .payments: "Payments entering a state, by this side's role; pending counts payments created."
        case .engineQueuedSteps: "Engine steps waiting for a ledger transaction."
        case .engineLanes: "Peers with frames waiting in a lane of their own."
        case .sessions: "Peer sessions up, by trust and direction."
        case .handshakes: "Connections that became peer sessions."
        case .handshakeRefusals: "Connections that ended before a session, by reason."
        case .discoveryTargets: "Peers to keep a session with (discovered or configured)."
        case .dials: "Outbound connections, by result."
        case .pairing: "Pairing attempts, by outcome."
        case .limitHits: "Times a limit of SECURITY.md refused, closed or dropped something, by limit."
        case .logLinesSuppressed: "Peer-caused log lines held back by the log budgets."
        case .undecodableFrames: "Frames of a session that did not decode, by error class."
        case .ratesAge: "Age of the exchange rates in use, in seconds."
        case .ratesFetchFailures: "Exchange-rate fetches that failed."
        case .webRequests: "Web app requests answered, by status class and route."
        case .residentBytes: "Resident memory of the daemon, in bytes."
        case .openDescriptors: "Open file descriptors of the daemon."
        case .threads: "Threads of the daemon."
        }
    }

    /// The counter of this metric with `labels` (from the bounded enumerations only), made by the bootstrapped
    /// factory (a no-op until the daemon bootstraps one).
    public func counter(_ labels: [(String, String)] = []) -> Counter {
        Counter(label: name, dimensions: labels)
    }

    /// The gauge of this metric with `labels`.
    public func gauge(_ labels: [(String, String)] = []) -> Gauge {
        Gauge(label: name, dimensions: labels)
    }
}

/// The limits of SECURITY.md that a metric counts (`interpay_limit_hits_total{limit}`).
public enum Limit: String, CaseIterable, Sendable {
    /// A frame larger than `limits.max_frame_bytes`.
    case frameBytes = "frame_bytes"
    /// TLS and `hello` not done within `limits.handshake_timeout`.
    case handshakeTimeout = "handshake_timeout"
    /// An inbound connection beyond `limits.max_unauthenticated` in handshake.
    case unauthenticated
    /// A session beyond `limits.max_sessions` (refused, or another evicted for it).
    case sessions
    /// A session beyond `limits.max_sessions_per_address`.
    case sessionsPerAddress = "sessions_per_address"
    /// A request beyond a peer's pending, per-minute or daily budget (`limit-exceeded`).
    case requests
    /// A subscription offer beyond the offers kept.
    case offers
    /// A pairing commit dropped by the per-peer or daemon-wide rate.
    case pairingCommits = "pairing_commits"
    /// A pairing attempt refused by a lockout after failed attempts.
    case pairingLockout = "pairing_lockout"
    /// A control-socket line beyond 64 KiB.
    case controlLine = "control_line"

    /// Counts one hit of this limit.
    public func hit() {
        InterPayMetric.limitHits.counter([("limit", rawValue)]).increment()
    }
}

/// Why a connection ended before it became a session (`interpay_handshake_refusals_total{reason}`).
public enum HandshakeRefusal: String, CaseIterable, Sendable {
    /// TLS failed (no certificate, a bad one, or a TLS error).
    case tls
    /// The first frame was not a well-formed `hello`, or the connection closed first (at the handshake's deadline
    /// too, which `Limit.handshakeTimeout` counts).
    case hello
    /// No protocol version in common.
    case version
    /// A dialed peer answered with another key than the one expected.
    case mismatch
    /// The daemon's session limits left no room.
    case full
    /// Any other reason (the daemon stopping, a connection to itself, a duplicate).
    case other

    /// Counts one refusal for this reason.
    public func count() {
        InterPayMetric.handshakeRefusals.counter([("reason", rawValue)]).increment()
    }
}
