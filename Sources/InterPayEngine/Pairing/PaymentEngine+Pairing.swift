import Foundation
public import InterPayCore
import InterPayMetrics
public import InterPayStore
public import Logging

/// The metadata that marks a log line the local user caused (a pairing started, a peer paired): the daemon's log
/// handler does not hold such a line to the peers' log budget, so that a flood from others cannot hide it.
public enum UserCause {
    /// The metadata key.
    public static let key = "cause"
    /// Its value on a line the local user caused.
    public static let value: Logger.Metadata.Value = "user"
}

/// Pairing by verification code (PROTOCOL.md §7.9) as engine steps.
///
/// One `PairingMachine` per peer holds the protocol and the policy (attempt and code lifetime, the lockout). Each
/// thing that moves it (the user's start and confirmation, the peer's `pair` frame, the peer's session coming up or
/// going, the tick) is one step: it runs the machine, writes a changed lockout (`pairingLockout`, read again when
/// the machine is made, so a restart lifts nothing) and a confirmed pairing (`trustedPeer`, kept until `untrust`) in
/// the step's transaction, and its frames leave after the commit, in order with the peer's other frames. A changed
/// lockout is written before any frame of the step leaves, so an attempt counts before the peer can learn a code.
///
/// Commits from peers pass a rate limit before a machine sees them: per peer always, and in total only for commits no
/// local attempt waits for, so that a flood of strangers' commits cannot drop the one the user is waiting for. The
/// link is told which peers have an attempt in progress (their sessions are never evicted), and "wants to pair" is
/// reported at most once per peer per `PairingState.requestNoticeInterval` and within a daemon-wide budget.
extension PaymentEngine {
    // MARK: Local commands

    /// Starts an attempt to pair with `peer` (or joins the one in progress) and waits up to `wait` for the code when
    /// the peer's user has started too.
    public func startPairing(
        with peer: PeerID, wait: Duration = .seconds(5), now: Timestamp = .now
    ) async throws(EngineError) -> PairingStatus {
        guard let session = link.session(with: peer) else { throw .peerUnreachable(peer) }
        guard session.capabilities.contains(PaymentMessage.Pairing.capability) else {
            throw .notPermitted(
                "\(SafeText.escaped(session.name)) (\(peer.shortDescription)) runs a daemon that does not support "
                    + "\(PaymentMessage.Pairing.capability) pairing: it must be upgraded before pairing")
        }
        // If the peer's user started first, its answer comes within a round trip; otherwise there is nothing to wait
        // for but the other user.
        let requested = pairingState.withLock { $0.requests[peer] != nil }
        let attemptID = UUID.random()
        let nonce = PairingCode.randomNonce()
        _ = try await perform(concerning: peer) { [self] ledger in
            try pairingStep(with: peer, ledger: ledger, now: now) {
                $0.start(attemptID: attemptID, nonce: nonce, now: now)
            }
        }
        let deadline = ContinuousClock.now + (requested ? wait : min(wait, .milliseconds(500)))
        while ContinuousClock.now < deadline, !Task.isCancelled {
            switch pairingState.withLock({ $0.machines[peer]?.phase }) {
            case .committed, .revealed: break
            default: return await pairingStatus(of: peer)
            }
            // The machine moves in the peer's steps, which report to no one waiting here; a cancelled sleep only
            // ends the wait early.
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await pairingStatus(of: peer)
    }

    /// Confirms the code the user read on the peer's device; on success the peer is trusted from now on. A wrong code
    /// ends the attempt.
    public func confirmPairing(
        _ code: PairingCode, with peer: PeerID, now: Timestamp = .now
    ) async throws(EngineError) -> TrustedPeerRecord {
        let outcome = try await perform(concerning: peer) { [self] ledger in
            try pairingStep(with: peer, ledger: ledger, now: now) { $0.confirm(code, now: now) }
        }
        guard let record = outcome.trusted else { throw .invalid("no pairing happened") }
        await link.trustChanged(for: peer)
        return record
    }

    /// Forgets the pairing with `peer`; false if it was not paired.
    public func untrust(_ peer: PeerID) async throws(EngineError) -> Bool {
        let outcome = try await perform(concerning: nil) { ledger in
            var outcome = StepOutcome()
            outcome.untrusted = try ledger.untrust(peer)
            return outcome
        }
        guard outcome.untrusted else { return false }
        logger.notice("peer untrusted", metadata: ["id": "\(peer.shortDescription)", UserCause.key: UserCause.value])
        await link.trustChanged(for: peer)
        return true
    }

    /// Where pairing with `peer` stands now (a lockout recorded in the ledger included). Asking creates no state: a
    /// peer without an attempt in progress is read from the ledger and forgotten again (`interpay peers` asks for
    /// every peer it lists).
    public func pairingStatus(of peer: PeerID, now: Timestamp = .now) async -> PairingStatus {
        let (kept, requestedAt) = pairingState.withLock { ($0.machines[peer], $0.requests[peer]) }
        let machine: PairingMachine
        if let kept {
            machine = kept
        } else {
            var lockout = PairingMachine.Lockout()
            do {
                if let record = try await database.pairingLockout(for: peer) {
                    lockout = .init(failures: record.failures, lockedUntil: record.lockedUntil)
                }
            } catch {
                // The lockout cannot be read: shown as locked for now rather than as lifted.
                logger.error(
                    "pairing lockout unreadable", metadata: ["id": "\(peer.shortDescription)", "error": "\(error)"])
                lockout = .init(failures: 0, lockedUntil: now.adding(seconds: PairingMachine.lockoutDuration))
            }
            machine = PairingMachine(me: me, peer: peer, lockout: lockout)
        }
        return .of(machine, requestedAt: requestedAt, now: now)
    }

    // MARK: Steps

    /// The step of a `pair` frame from `peer`. Commits over the rate limit are dropped unseen: the per-peer one always,
    /// the daemon-wide one only when no attempt of the local user with the peer is in progress (an unsolicited commit).
    func receivePairing(
        _ frame: PaymentMessage.Pairing, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        if frame.step == .commit {
            let admitted = pairingState.withLock { state in
                state.limiter.admit(peer, solicited: state.machines[peer]?.attemptID != nil, now: .now)
            }
            guard admitted else {
                Limit.pairingCommits.hit()
                logger.debug("pairing commit over the rate limit dropped", metadata: ["id": "\(peer.shortDescription)"])
                return StepOutcome()
            }
        }
        return try pairingStep(with: peer, ledger: ledger, now: now) { $0.receive(frame, now: now) }
    }

    /// Adds to `outcome` what `peer`'s session coming up (an attempt that has revealed nothing sends its commit
    /// again) or going (an attempt in progress fails) does to pairing with it, if anything is in play.
    func pairingSessionChanged(
        _ peer: PeerID, up: Bool, ledger: Ledger, now: Timestamp, into outcome: inout StepOutcome
    ) throws {
        guard pairingState.withLock({ $0.machines[peer] != nil }) else { return }
        outcome.append(
            try pairingStep(with: peer, ledger: ledger, now: now) {
                up ? $0.sessionUp(now: now) : $0.sessionLost(now: now)
            })
    }

    /// Adds to `outcome` the ends of attempts and codes past their time and the locks lifted past theirs; forgets
    /// idle machines (their lockout is in the ledger) and requests older than a code's lifetime.
    func tickPairing(ledger: Ledger, now: Timestamp, into outcome: inout StepOutcome) throws {
        let peers = pairingState.withLock { state in
            state.requests = state.requests.filter { now < $0.value.adding(seconds: PairingMachine.codeLifetime) }
            return Array(state.machines.keys)
        }
        for peer in peers {
            outcome.append(try pairingStep(with: peer, ledger: ledger, now: now) { $0.tick(now: now) })
            pairingState.withLock { state in
                if state.machines[peer]?.phase == .idle { state.machines.removeValue(forKey: peer) }
            }
        }
    }

    /// Runs `body` on `peer`'s machine (made with the lockout the ledger holds, unless kept) inside a step, and
    /// carries out its actions: the ledger's writes first, then the machine and what is kept beside it, then the
    /// link is told whether an attempt is in progress (before any of its frames is handed over). A refusal becomes
    /// the outcome's refusal: the step still commits (a refused confirmation may have counted a failure).
    func pairingStep(
        with peer: PeerID, ledger: Ledger, now: Timestamp,
        _ body: (inout PairingMachine) -> [PairingMachine.Action]
    ) throws -> StepOutcome {
        var machine: PairingMachine
        if let kept = pairingState.withLock({ $0.machines[peer] }) {
            machine = kept
        } else {
            let record = try ledger.pairingLockout(for: peer)
            machine = PairingMachine(
                me: me, peer: peer,
                lockout: .init(failures: record?.failures ?? 0, lockedUntil: record?.lockedUntil))
        }
        let before = machine.lockout
        let actions = body(&machine)
        if machine.lockout != before {
            try ledger.savePairingLockout(
                PairingLockoutRecord(
                    peerID: peer, failures: machine.lockout.failures, lockedUntil: machine.lockout.lockedUntil))
        }
        // A name is only for display: the announced one, else the ledger's, else the short ID.
        let name = try link.session(with: peer)?.name ?? ledger.announcedName(peer) ?? peer.shortDescription
        var outcome = StepOutcome()
        var bodies: [[UInt8]] = []
        for action in actions {
            switch action {
            case .send(let frame):
                bodies.append(try encoded(.pair(frame)))
            case .paired:
                let record = TrustedPeerRecord(peerID: peer, name: name, pairedAt: now)
                try ledger.trust(record)
                outcome.trusted = record
                outcome.events.append(.pairing(.paired(peer: peer, name: name)))
            case .started(let attemptID):
                outcome.events.append(.pairing(.started(peer: peer, name: name, attemptID: attemptID)))
            case .peerWantsToPair:
                if let heldBack = noticeOfRequest(from: peer, now: now) {
                    outcome.events.append(.pairing(.requested(peer: peer, name: name, heldBack: heldBack)))
                }
            case .showCode(let code, let expiresAt):
                outcome.events.append(.pairing(.code(peer: peer, name: name, code: code, expiresAt: expiresAt)))
            case .counted:
                break
            case .failed(let reason):
                outcome.events.append(
                    .pairing(.failed(peer: peer, name: name, reason: reason, failures: machine.lockout.failures)))
            case .lockedOut(let until):
                outcome.events.append(.pairing(.locked(peer: peer, name: name, until: until)))
            case .refuse(let reason):
                outcome.refusal = .notPermitted(reason.description)
                if case .locked = reason { Limit.pairingLockout.hit() }
            }
        }
        let started = actions.contains { if case .started = $0 { true } else { false } }
        let inProgress = machine.attemptID != nil
        let protectionChanged = pairingState.withLock { state in
            state.machines[peer] = machine
            if started { state.requests[peer] = nil }
            guard inProgress != state.protected.contains(peer) else { return false }
            if inProgress { state.protected.insert(peer) } else { state.protected.remove(peer) }
            return true
        }
        if protectionChanged { link.setPairingInProgress(inProgress, for: peer) }
        if !bodies.isEmpty, let session = link.session(with: peer) {
            outcome.add(Transmission(session: session, bodies: bodies))
        }
        return outcome
    }

    /// Records that `peer` asked to pair; the number of notices held back before this one when it is to be reported
    /// (not within `requestNoticeInterval` of the peer's last, and within the daemon-wide budget), else nil.
    /// `interpay peers` shows the request either way.
    private func noticeOfRequest(from peer: PeerID, now: Timestamp) -> Int? {
        pairingState.withLock { state in
            let last = state.requests[peer]
            state.requests[peer] = now
            if let last, now < last.adding(seconds: PairingState.requestNoticeInterval) { return nil }
            return state.notices.admit(now: .now)
        }
    }

    // MARK: Reports

    /// What became of pairing attempts (`interpay_pairing_total{outcome}`).
    enum PairingOutcome: String, CaseIterable {
        case started, paired, failed, locked
    }

    /// The log line and count of a committed pairing event.
    func report(_ event: PairingEvent) {
        func count(_ outcome: PairingOutcome) {
            InterPayMetric.pairing.counter([("outcome", outcome.rawValue)]).increment()
        }
        switch event {
        case .requested(let peer, let name, let heldBack):
            var metadata: Logger.Metadata = ["peer": "\(name)", "id": "\(peer.shortDescription)"]
            if heldBack > 0 { metadata["notices_suppressed"] = "\(heldBack)" }
            logger.notice("peer wants to pair; not answered until the user runs interpay pair", metadata: metadata)
        case .started(let peer, let name, let attemptID):
            count(.started)
            logger.notice(
                "pairing attempt started",
                metadata: [
                    "peer": "\(name)", "id": "\(peer.shortDescription)", UserCause.key: UserCause.value,
                    "attempt": "\(attemptID.wireString)",
                ])
        case .code(let peer, let name, _, _):
            logger.info(
                "pairing code ready",
                metadata: ["peer": "\(name)", "id": "\(peer.shortDescription)", UserCause.key: UserCause.value])
        case .paired(let peer, let name):
            count(.paired)
            logger.notice(
                "peer paired",
                metadata: ["peer": "\(name)", "id": "\(peer.shortDescription)", UserCause.key: UserCause.value])
        case .failed(let peer, let name, let reason, let failures):
            count(.failed)
            logger.notice(
                "pairing attempt failed",
                metadata: [
                    "peer": "\(name)", "id": "\(peer.shortDescription)", "reason": "\(reason)",
                    UserCause.key: UserCause.value, "failures": "\(failures)/\(PairingMachine.maxFailures)",
                ])
        case .locked(let peer, let name, let until):
            count(.locked)
            logger.warning(
                "pairing locked after failed attempts",
                metadata: [
                    "peer": "\(name)", "id": "\(peer.shortDescription)", "until": "\(until)",
                    UserCause.key: UserCause.value,
                ])
        }
    }
}

extension PaymentEngine.StepOutcome {
    /// Adds what `other` sends and reports after this outcome's own.
    mutating func append(_ other: PaymentEngine.StepOutcome) {
        transmissions += other.transmissions
        events += other.events
        answered += other.answered
    }
}
