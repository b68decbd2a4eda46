import Foundation
import InterPayCore
import InterPayEngine
import InterPayMetrics
import InterPayStore
import InterPayTransport
import Logging

/// Pairs this daemon with peers by verification code, and keeps the trust store (PROTOCOL.md §7.9).
///
/// One `PairingMachine` per peer holds the protocol and the policy (attempt and code lifetime, the lockout); this
/// actor feeds it the user's commands, the peer's `pair` frames and the time, carries out its actions, persists its
/// lockout in the ledger's `pairingLockout` table (restored when the peer's machine is created, so a restart lifts
/// nothing), and records a confirmed pairing in `trustedPeer`, where it survives restarts until `untrust`. Commits
/// from peers pass a rate limit before a machine sees them: per peer always, and in total only for commits no local
/// attempt waits for, so that a flood of strangers' commits cannot drop the one the user is waiting for. It tells
/// the session manager which peers have an attempt in progress (their sessions are never evicted), and reports
/// "wants to pair" at most once per peer per `requestNoticeInterval` and within a daemon-wide budget.
actor PairingCoordinator {
    private let database: AppDatabase
    private let sessions: SessionManager
    private let me: PeerID
    private let logger: Logger
    private let eventContinuation: AsyncStream<PairingEvent>.Continuation
    /// Pairing events for watchers.
    nonisolated let events: AsyncStream<PairingEvent>

    private var machines: [PeerID: PairingMachine] = [:]
    private var limiter = PairingRateLimiter()
    /// When each peer last asked to pair while the local user had not started: shown for a code lifetime.
    private var requests: [PeerID: Timestamp] = [:]
    /// How often a peer's request to pair is reported at most.
    private static let requestNoticeInterval: Int64 = 10
    /// Reports of requests to pair, all peers together (log line and `watch` event): 10 at once, then one per 6 s.
    private var notices = NoticeBudget()
    /// The peers the session manager was told have an attempt in progress.
    private var protected: Set<PeerID> = []

    init(database: AppDatabase, sessions: SessionManager, logger: Logger) {
        self.database = database
        self.sessions = sessions
        self.me = sessions.identity.peerID
        self.logger = logger
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Where pairing with one peer stands, for `peers` and `pair`.
    struct Status: Sendable {
        /// `idle`; `requested` (the peer's user started, ours has not); `waiting` (ours started, the peer's user has
        /// not, as far as we know); `exchanging` (nonces are being revealed); `code` (shown, to be confirmed);
        /// or `locked`.
        var phase: String
        /// The code to compare and confirm, while it is valid.
        var code: PairingCode?
        /// When the code or the attempt expires, or when the lockout ends.
        var until: Timestamp?
        /// Failed attempts that count toward the lockout.
        var failures = 0
    }

    // MARK: Local commands

    /// Starts an attempt to pair with `peer` (or joins the one in progress) and waits up to `wait` for the code when
    /// the peer's user has started too.
    func start(
        with peer: PeerID, wait: Duration = .seconds(5), now: Timestamp = .now
    ) async throws(EngineError)
        -> Status
    {
        guard let session = await sessions.currentSessions().first(where: { $0.peerID == peer }) else {
            throw .peerUnreachable(peer)
        }
        guard session.capabilities.contains(PaymentMessage.Pairing.capability) else {
            throw .notPermitted(
                "\(SafeText.escaped(session.name)) (\(peer.shortDescription)) runs a daemon that does not support "
                    + "\(PaymentMessage.Pairing.capability) pairing: it must be upgraded before pairing")
        }
        // If the peer's user started first, its answer comes within a round trip; otherwise there is nothing to wait
        // for but the other user.
        let requested = requests[peer] != nil
        let step = await update(peer) { $0.start(attemptID: UUID.random(), nonce: PairingCode.randomNonce(), now: now) }
        try await perform(step, peer: peer, now: now)
        let deadline = ContinuousClock.now + (requested ? wait : min(wait, .milliseconds(500)))
        while ContinuousClock.now < deadline, !Task.isCancelled {
            switch machines[peer]?.phase {
            case .committed, .revealed: break
            default: return await status(of: peer)
            }
            // Polling the actor's own state; a cancelled sleep only ends the wait early.
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await status(of: peer)
    }

    /// Confirms the code the user read on the peer's device; on success the peer is trusted from now on. A wrong
    /// code ends the attempt.
    func confirm(
        _ code: PairingCode, with peer: PeerID, now: Timestamp = .now
    ) async throws(EngineError)
        -> TrustedPeerRecord
    {
        let step = await update(peer) { $0.confirm(code, now: now) }
        try await perform(step, peer: peer, now: now)
        guard step.actions.contains(.paired) else { throw .invalid("no pairing happened") }
        guard let record = try await trusted(peer) else { throw .storage("the pairing was not recorded") }
        return record
    }

    /// Forgets the pairing with `peer`; false if it was not paired.
    func untrust(_ peer: PeerID) async throws(EngineError) -> Bool {
        let removed: Bool
        do { removed = try await database.untrust(peer) } catch { throw .storage(error.description) }
        if removed {
            logger.notice(
                "peer untrusted", metadata: ["id": "\(peer.shortDescription)", "cause": DaemonLogHandler.userCause])
            await sessions.preferenceChanged(for: peer)
        }
        return removed
    }

    /// Whether `peer` is paired (false when the ledger cannot say, which is logged).
    func isPaired(_ peer: PeerID) async -> Bool {
        await database.isPaired(peer, logger: logger, otherwise: "treating it as not paired")
    }

    /// Where pairing with `peer` stands now (a lockout recorded in the ledger included).
    /// Asking creates no state: a peer without an attempt in progress is read from the ledger and forgotten again
    /// (`interpay peers` asks for every peer it lists).
    func status(of peer: PeerID, now: Timestamp = .now) async -> Status {
        let machine: PairingMachine
        if let existing = machines[peer] { machine = existing } else { machine = await stored(peer) }
        let failures = machine.lockout.failures
        switch machine.phase {
        case .idle:
            if let asked = requests[peer], now < asked.adding(seconds: PairingMachine.codeLifetime) {
                return Status(phase: "requested", failures: failures)
            }
            return Status(phase: "idle", failures: failures)
        case .committed(_, let expiresAt):
            return Status(phase: "waiting", until: expiresAt, failures: failures)
        case .revealed(_, _, let expiresAt):
            return Status(phase: "exchanging", until: expiresAt, failures: failures)
        case .codeReady(_, _, let code, let expiresAt):
            return expiresAt > now
                ? Status(phase: "code", code: code, until: expiresAt, failures: failures)
                : Status(phase: "idle", failures: failures)
        case .locked(let until):
            return until > now ? Status(phase: "locked", until: until) : Status(phase: "idle")
        }
    }

    // MARK: The peer and time

    /// Handles the peer's `pair` frame. Commits over the rate limit are dropped unseen: the per-peer one always, the
    /// daemon-wide one only when no attempt of the local user with the peer is in progress (an unsolicited commit).
    func receive(_ frame: PaymentMessage.Pairing, from peer: PeerID, now: Timestamp = .now) async {
        let solicited = machines[peer]?.attemptID != nil
        if frame.step == .commit, !limiter.admit(peer, solicited: solicited, now: .now) {
            Limit.pairingCommits.hit()
            logger.debug("pairing commit over the rate limit dropped", metadata: ["id": "\(peer.shortDescription)"])
            return
        }
        let step = await update(peer) { $0.receive(frame, now: now) }
        await perform(step, peer: peer, now: now, failure: "pairing step not carried out")
    }

    /// The session with `peer` ended.
    func sessionDown(_ peer: PeerID, now: Timestamp = .now) async {
        guard machines[peer] != nil else { return }
        let step = await update(peer) { $0.sessionLost(now: now) }
        await perform(step, peer: peer, now: now, failure: "pairing failure not recorded")
    }

    /// A session with `peer` came up (again): an attempt that has revealed nothing sends its commit again.
    func sessionUp(_ peer: PeerID, now: Timestamp = .now) async {
        guard machines[peer] != nil else { return }
        let step = await update(peer) { $0.sessionUp(now: now) }
        await perform(step, peer: peer, now: now, failure: "pairing commit not sent again")
    }

    /// Ends attempts and codes past their time and lifts locks past theirs; forgets idle machines (their lockout is
    /// in the ledger).
    func tick(now: Timestamp = .now) async {
        for peer in Array(machines.keys) {
            let step = await update(peer) { $0.tick(now: now) }
            await perform(step, peer: peer, now: now, failure: "pairing expiry not recorded")
            if machines[peer]?.phase == .idle { machines.removeValue(forKey: peer) }
        }
        requests = requests.filter { now < $0.value.adding(seconds: PairingMachine.codeLifetime) }
    }

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

    // MARK: Helpers

    /// Creates the machine for `peer` with the lockout recorded in the ledger, unless it exists.
    private func load(_ peer: PeerID) async {
        guard machines[peer] == nil else { return }
        let machine = await stored(peer)
        // Another call may have created it while the ledger was read.
        if machines[peer] == nil { machines[peer] = machine }
    }

    /// A machine for `peer` with the lockout recorded in the ledger, not kept.
    private func stored(_ peer: PeerID) async -> PairingMachine {
        var lockout = PairingMachine.Lockout()
        do {
            if let record = try await database.pairingLockout(for: peer) {
                lockout = .init(failures: record.failures, lockedUntil: record.lockedUntil)
            }
        } catch {
            // The lockout cannot be read: assume the peer is locked for now rather than lift a lock.
            logger.error(
                "pairing lockout unreadable", metadata: ["id": "\(peer.shortDescription)", "error": "\(error)"])
            lockout = .init(failures: 0, lockedUntil: Timestamp.now.adding(seconds: PairingMachine.lockoutDuration))
        }
        return PairingMachine(me: me, peer: peer, lockout: lockout)
    }

    /// What one step of a machine asks for: its actions, and whether its lockout changed (to be written first).
    private struct Step {
        var actions: [PairingMachine.Action]
        var lockoutChanged: Bool
    }

    /// Runs `body` on the machine of `peer` (created first if need be).
    private func update(_ peer: PeerID, _ body: (inout PairingMachine) -> [PairingMachine.Action]) async -> Step {
        await load(peer)
        var machine = machines[peer] ?? PairingMachine(me: me, peer: peer)
        let before = machine.lockout
        let actions = body(&machine)
        machines[peer] = machine
        // The session of an attempt in progress is never evicted; told before any frame of the attempt leaves.
        let inProgress = machine.attemptID != nil
        if inProgress != protected.contains(peer) {
            if inProgress { protected.insert(peer) } else { protected.remove(peer) }
            await sessions.setPairingInProgress(inProgress, for: peer)
        }
        return Step(actions: actions, lockoutChanged: machine.lockout != before)
    }

    /// Carries out a machine's actions where no command waits for the outcome: a failure is logged as `failure`.
    private func perform(_ step: Step, peer: PeerID, now: Timestamp, failure: Logger.Message) async {
        do {
            try await perform(step, peer: peer, now: now)
        } catch {
            logger.error(failure, metadata: ["id": "\(peer.shortDescription)", "error": "\(error)"])
        }
    }

    /// Carries out a machine's actions: a changed lockout is written first (before any frame leaves, so that an
    /// attempt is counted before the peer can learn a code); a refusal becomes the error of the command.
    private func perform(_ step: Step, peer: PeerID, now: Timestamp) async throws(EngineError) {
        if step.lockoutChanged {
            let lockout = machines[peer]?.lockout ?? .init()
            do {
                try await database.savePairingLockout(
                    PairingLockoutRecord(peerID: peer, failures: lockout.failures, lockedUntil: lockout.lockedUntil))
            } catch {
                throw .storage(error.description)
            }
        }
        let name = await name(of: peer)
        let id = peer.shortDescription
        var refusal: PairingMachine.Refusal?
        for action in step.actions {
            switch action {
            case .send(let frame):
                await sessions.send(.pair(frame), to: peer)
            case .started(let attemptID):
                requests[peer] = nil
                Self.count(.started)
                logger.notice(
                    "pairing attempt started",
                    metadata: [
                        "peer": "\(name)", "id": "\(id)", "cause": DaemonLogHandler.userCause,
                        "attempt": "\(attemptID.wireString)",
                    ])
                eventContinuation.yield(.started(peer: peer, name: name, attemptID: attemptID))
            case .peerWantsToPair:
                let last = requests[peer]
                requests[peer] = now
                if let last, now < last.adding(seconds: Self.requestNoticeInterval) { break }
                // `peers` still shows the request; only the line and the event are held back.
                guard let suppressed = notices.admit(now: .now) else { break }
                var metadata: Logger.Metadata = ["peer": "\(name)", "id": "\(id)"]
                if suppressed > 0 { metadata["notices_suppressed"] = "\(suppressed)" }
                logger.notice("peer wants to pair; not answered until the user runs interpay pair", metadata: metadata)
                eventContinuation.yield(.requested(peer: peer, name: name))
            case .showCode(let code, let expiresAt):
                logger.info(
                    "pairing code ready",
                    metadata: ["peer": "\(name)", "id": "\(id)", "cause": DaemonLogHandler.userCause])
                eventContinuation.yield(.code(peer: peer, name: name, code: code, expiresAt: expiresAt))
            case .paired:
                do {
                    try await database.trust(TrustedPeerRecord(peerID: peer, name: name, pairedAt: now))
                } catch {
                    throw .storage(error.description)
                }
                Self.count(.paired)
                logger.notice(
                    "peer paired", metadata: ["peer": "\(name)", "id": "\(id)", "cause": DaemonLogHandler.userCause])
                await sessions.preferenceChanged(for: peer)
                eventContinuation.yield(.paired(peer: peer, name: name))
            case .counted:
                break
            case .failed(let reason):
                Self.count(.failed)
                let failures = machines[peer]?.lockout.failures ?? 0
                logger.notice(
                    "pairing attempt failed",
                    metadata: [
                        "peer": "\(name)", "id": "\(id)", "reason": "\(reason)", "cause": DaemonLogHandler.userCause,
                        "failures": "\(failures)/\(PairingMachine.maxFailures)",
                    ])
                eventContinuation.yield(.failed(peer: peer, name: name, reason: reason, failures: failures))
            case .lockedOut(let until):
                Self.count(.locked)
                logger.warning(
                    "pairing locked after failed attempts",
                    metadata: [
                        "peer": "\(name)", "id": "\(id)", "until": "\(until)", "cause": DaemonLogHandler.userCause,
                    ])
                eventContinuation.yield(.locked(peer: peer, name: name, until: until))
            case .refuse(let reason):
                refusal = reason
                if case .locked = reason { Limit.pairingLockout.hit() }
            }
        }
        if let refusal { throw .notPermitted(refusal.description) }
    }

    /// What became of pairing attempts (`interpay_pairing_total{outcome}`).
    enum Outcome: String, CaseIterable {
        case started, paired, failed, locked
    }

    private static func count(_ outcome: Outcome) {
        InterPayMetric.pairing.counter([("outcome", outcome.rawValue)]).increment()
    }

    private func trusted(_ peer: PeerID) async throws(EngineError) -> TrustedPeerRecord? {
        do { return try await database.trustedPeer(id: peer) } catch { throw .storage(error.description) }
    }

    private func name(of peer: PeerID) async -> String {
        if let session = await sessions.currentSessions().first(where: { $0.peerID == peer }) { return session.name }
        // A name is only for display: without one from the ledger, the short ID does.
        do {
            if let record = try await database.peer(id: peer) { return record.name }
        } catch {
            logger.warning(
                "cannot read a peer's name; showing its short ID",
                metadata: ["peer": "\(peer.shortDescription)", "error": "\(error)"])
        }
        return peer.shortDescription
    }
}
