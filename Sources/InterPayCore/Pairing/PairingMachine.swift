public import FoundationEssentials

/// Pairing with one peer, as a pure state machine (PROTOCOL.md §7.9).
///
/// Feed it the local user's commands, the peer's `pair` frames and the time; it returns the `Action`s the caller
/// carries out (send a frame, report an attempt, show a code, trust the peer, persist the lockout, report a failure
/// or a refusal). It does no I/O, reads no clock, and takes its attempt IDs and random nonces from the caller.
///
/// The exchange is symmetric. When the local user starts, the machine sends a `commit` to its nonce, bound to this
/// side's ID. It answers the peer only while its own user's attempt runs: a `commit` that arrives before that is
/// reported (`peerWantsToPair`) and otherwise ignored. Once it holds the peer's commit it sends its own commit
/// again (the peer may have ignored the first) and then its `reveal`; it checks the peer's reveal against the
/// peer's commit and derives the code. So neither side reveals before it holds the other's commitment, and neither
/// can learn a code it could still change.
///
/// The policy: an attempt lasts at most `codeLifetime` before it has a code, and a code is valid for `codeLifetime`.
/// An attempt counts as a failure when this side reveals its nonce (the moment a code can be learned) and does not
/// end in a pairing; an attempt that ends before it revealed anything (expiry, abort) is not counted, since nothing
/// could be learned from it, so that a stranger who cuts sessions or floods the daemon cannot spend the honest
/// users' attempts. An attempt that has revealed nothing also survives the loss of its session: when a session with
/// the peer comes up again its commit is sent again. A second, different commit from the peer in one attempt, a
/// reveal that does not match its commit and a wrong code end the attempt. `maxFailures` failures lock pairing with
/// the peer for `lockoutDuration`; a right code resets the count. The count and the lock are `lockout`, which the
/// caller persists and restores.
public struct PairingMachine: Sendable, Hashable {
    /// How long an attempt may take to reach a code, and how long the code stays valid: 2 minutes.
    public static let codeLifetime: Int64 = 120
    /// Failed attempts in a row that lock pairing: 3.
    public static let maxFailures = 3
    /// How long pairing stays locked: 10 minutes.
    public static let lockoutDuration: Int64 = 600

    /// This daemon.
    public let me: PeerID
    /// The peer being paired with.
    public let peer: PeerID
    /// Where the pairing stands.
    public private(set) var phase: Phase
    /// Failed attempts and the lock: what survives a restart (the caller persists it when it changes).
    public private(set) var lockout: Lockout

    /// The failure count and lock of pairing with one peer.
    public struct Lockout: Sendable, Hashable, Codable {
        /// Failed attempts since the last right code or the last lock, `0..<maxFailures` between attempts.
        public var failures: Int
        /// Pairing with the peer is refused until then.
        public var lockedUntil: Timestamp?

        /// A count of `failures` and a lock until `lockedUntil`, if any.
        public init(failures: Int = 0, lockedUntil: Timestamp? = nil) {
            self.failures = failures
            self.lockedUntil = lockedUntil
        }
    }

    /// This side's attempt: its ID and the nonce it committed to.
    public struct Attempt: Sendable, Hashable {
        /// The attempt ID in this side's `commit` and `reveal`.
        public let id: UUID
        /// The nonce this side committed to.
        public let nonce: [UInt8]
    }

    /// The peer's commit that this side's attempt is bound to.
    public struct PeerCommit: Sendable, Hashable {
        /// The peer's attempt ID.
        public let id: UUID
        /// SHA-256("interpay-pairing-commit-v2" ‖ peerID ‖ the peer's nonce).
        public let commitment: [UInt8]
    }

    /// Where a pairing stands.
    public enum Phase: Sendable, Hashable {
        /// No attempt: the peer's frames are not answered.
        case idle
        /// The local user started: our commit is sent, the peer's commit is awaited.
        case committed(Attempt, expiresAt: Timestamp)
        /// Both commits are known and our nonce is revealed; the peer's reveal is awaited.
        case revealed(Attempt, PeerCommit, expiresAt: Timestamp)
        /// Both sides hold the code; the local user may confirm it until `expiresAt`.
        case codeReady(Attempt, PeerCommit, code: PairingCode, expiresAt: Timestamp)
        /// Too many failed attempts: no pairing with this peer until then.
        case locked(until: Timestamp)
    }

    /// What the caller must do.
    public enum Action: Sendable, Hashable {
        /// Send this frame to the peer.
        case send(PaymentMessage.Pairing)
        /// The local user started an attempt with this ID (log it, show it in `watch`).
        case started(UUID)
        /// The peer sent a commit while the local user has not started pairing with it: tell the user (rate-limited),
        /// answer nothing.
        case peerWantsToPair
        /// Show the code to the user (`watch`, `peers`); it is valid until the given time.
        case showCode(PairingCode, expiresAt: Timestamp)
        /// The user confirmed the right code: trust the peer from now on.
        case paired
        /// An attempt was charged to the lockout as this side revealed its nonce: this many failures now count
        /// (persist `lockout`).
        case counted(failures: Int)
        /// The attempt in progress ended without trust, for this reason.
        case failed(String)
        /// Too many failed attempts: pairing with the peer is locked until the given time.
        case lockedOut(until: Timestamp)
        /// A local command was refused; nothing changed but what other actions say.
        case refuse(Refusal)
    }

    /// Why a local command was refused.
    public enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// Pairing with this peer is locked until then.
        case locked(until: Timestamp)
        /// There is no code to confirm (none yet, or the attempt ended).
        case noCode
        /// The code was wrong and the attempt ended; this many attempts are left before the lockout.
        case wrongCode(remaining: Int)

        /// The refusal as told to the user.
        public var description: String {
            switch self {
            case .locked(let until):
                "pairing with this peer is locked after \(PairingMachine.maxFailures) failed attempts until \(until)"
            case .noCode:
                "no verification code to confirm: start pairing first, or again if the attempt ended"
            case .wrongCode(let remaining):
                "wrong verification code: this attempt ended; start again ("
                    + "\(remaining) \(remaining == 1 ? "attempt" : "attempts") left before pairing locks)"
            }
        }
    }

    /// A machine with no attempt in progress and the given lockout (restored from the ledger).
    public init(me: PeerID, peer: PeerID, lockout: Lockout = Lockout()) {
        self.me = me
        self.peer = peer
        self.lockout = lockout
        self.phase = lockout.lockedUntil.map { .locked(until: $0) } ?? .idle
    }

    /// The code the user may confirm now, if any.
    public var code: (code: PairingCode, expiresAt: Timestamp)? {
        if case .codeReady(_, _, let code, let expiresAt) = phase { (code, expiresAt) } else { nil }
    }

    /// The ID of this side's attempt in progress, if any.
    public var attemptID: UUID? {
        switch phase {
        case .committed(let ours, _), .revealed(let ours, _, _), .codeReady(let ours, _, _, _): ours.id
        case .idle, .locked: nil
        }
    }

    // MARK: Local commands

    /// The local user starts an attempt with a fresh `attemptID` and `nonce`. Does nothing while an attempt is in
    /// progress (it goes on); refused while locked.
    public mutating func start(attemptID: UUID, nonce: [UInt8], now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        switch phase {
        case .locked(let until):
            actions.append(.refuse(.locked(until: until)))
        case .idle:
            let ours = Attempt(id: attemptID, nonce: nonce)
            phase = .committed(ours, expiresAt: now.adding(seconds: Self.codeLifetime))
            actions += [.started(attemptID), .send(commit(ours))]
        case .committed, .revealed, .codeReady:
            break
        }
        return actions
    }

    /// The local user enters the code shown on the peer's device. A wrong code ends the attempt.
    public mutating func confirm(_ entered: PairingCode, now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        switch phase {
        case .locked(let until):
            actions.append(.refuse(.locked(until: until)))
        case .codeReady(let ours, _, let code, _):
            if entered == code {
                phase = .idle
                lockout = Lockout()
                actions.append(.paired)
            } else {
                actions.append(.send(.init(abort: ours.id, reason: "the verification code entered was wrong")))
                actions += end("the verification code entered was wrong", now: now)
                if case .locked(let until) = phase {
                    actions.append(.refuse(.locked(until: until)))
                } else {
                    actions.append(.refuse(.wrongCode(remaining: Self.maxFailures - lockout.failures)))
                }
            }
        case .idle, .committed, .revealed:
            actions.append(.refuse(.noCode))
        }
        return actions
    }

    /// The session with the peer ended: an attempt that revealed its nonce and has no code yet ends (it counted
    /// already). One that revealed nothing goes on, to be sent again by `sessionUp(now:)`; a code stays.
    public mutating func sessionLost(now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        switch phase {
        case .revealed:
            actions += end("the session with the peer ended", now: now)
        case .idle, .committed, .codeReady, .locked:
            break
        }
        return actions
    }

    /// A session with the peer came up (again, or a new connection replaced the old one): an attempt that has
    /// revealed nothing sends its commit again, since the peer may not have received it.
    public mutating func sessionUp(now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        if case .committed(let ours, _) = phase { actions.append(.send(commit(ours))) }
        return actions
    }

    /// Time passes: an attempt or code past its time ends, and a lock past its time lifts.
    public mutating func tick(now: Timestamp) -> [Action] {
        expire(now: now)
    }

    // MARK: Frames from the peer

    /// Handles the peer's `pair` frame. Nothing is sent unless the local user's attempt is in progress.
    public mutating func receive(_ frame: PaymentMessage.Pairing, now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        switch (frame.step, phase) {
        case (.commit, .idle), (.commit, .locked):
            // Not started here: the user hears of it, the peer hears nothing.
            actions.append(.peerWantsToPair)
        case (.commit, .committed(let ours, let expiresAt)):
            let theirs = PeerCommit(id: frame.pairingID, commitment: frame.value ?? [])
            // The attempt is charged before our nonce leaves: from here on the peer can learn a code.
            lockout.failures += 1
            phase = .revealed(ours, theirs, expiresAt: expiresAt)
            actions += [.counted(failures: lockout.failures), .send(commit(ours)), .send(reveal(ours))]
        case (.commit, .revealed(let ours, let theirs, _)), (.commit, .codeReady(let ours, let theirs, _, _)):
            if frame.pairingID == theirs.id && frame.value == theirs.commitment { break }  // the same commit again
            actions.append(.send(.init(abort: ours.id, reason: "a second, different commit in one attempt")))
            actions += end("the peer sent a second, different commit", now: now)
        case (.reveal, .revealed(let ours, let theirs, _)) where frame.pairingID == theirs.id:
            let nonce = frame.value ?? []
            guard PairingCode.commitment(to: nonce, from: peer) == theirs.commitment else {
                actions.append(.send(.init(abort: ours.id, reason: "the revealed nonce does not match its commit")))
                actions += end("the peer's nonce did not match its commitment", now: now)
                break
            }
            let code = PairingCode(me, nonce: ours.nonce, peer, nonce: nonce)
            let expiresAt = now.adding(seconds: Self.codeLifetime)
            phase = .codeReady(ours, theirs, code: code, expiresAt: expiresAt)
            actions.append(.showCode(code, expiresAt: expiresAt))
        case (.reveal, _):
            // A reveal of no attempt bound here (it ended, or never began, or came before its commit): not answered,
            // so that stray frames cannot start an exchange of aborts.
            break
        case (.abort, .committed(let ours, _)) where frame.pairingID == ours.id:
            actions += end("the peer ended the pairing: \(frame.reason ?? "")", now: now)
        case (.abort, .revealed(let ours, let theirs, _)), (.abort, .codeReady(let ours, let theirs, _, _)):
            // Either side's attempt ID names this attempt; another one is a stray, ignored.
            guard frame.pairingID == ours.id || frame.pairingID == theirs.id else { break }
            actions += end("the peer ended the pairing: \(frame.reason ?? "")", now: now)
        case (.abort, _):
            break
        }
        return actions
    }

    // MARK: Helpers

    private func commit(_ ours: Attempt) -> PaymentMessage.Pairing {
        .init(pairingID: ours.id, step: .commit, value: PairingCode.commitment(to: ours.nonce, from: me))
    }

    private func reveal(_ ours: Attempt) -> PaymentMessage.Pairing {
        .init(pairingID: ours.id, step: .reveal, value: ours.nonce)
    }

    /// Ends the attempt in progress without trust. It counted already if it revealed our nonce, and is not counted
    /// otherwise (nothing could be learned from it); the lock engages once `maxFailures` attempts count.
    private mutating func end(_ reason: String, now: Timestamp) -> [Action] {
        phase = .idle
        var actions: [Action] = [.failed(reason)]
        if lockout.failures >= Self.maxFailures {
            let until = now.adding(seconds: Self.lockoutDuration)
            phase = .locked(until: until)
            lockout = Lockout(failures: 0, lockedUntil: until)
            actions.append(.lockedOut(until: until))
        }
        return actions
    }

    private mutating func expire(now: Timestamp) -> [Action] {
        switch phase {
        case .committed(_, let expiresAt):
            guard now >= expiresAt else { return [] }
            return end("the peer did not start pairing in time", now: now)
        case .revealed(_, _, let expiresAt):
            guard now >= expiresAt else { return [] }
            return end("the peer did not reveal its nonce in time", now: now)
        case .codeReady(_, _, _, let expiresAt):
            guard now >= expiresAt else { return [] }
            return end("the verification code expired", now: now)
        case .locked(let until):
            guard now >= until else { return [] }
            phase = .idle
            lockout = Lockout()
            return []
        case .idle:
            return []
        }
    }
}
