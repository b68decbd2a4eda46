public import Foundation

/// Pairing with one peer, as a pure state machine (PROTOCOL.md §7.9).
///
/// Feed it local commands, the peer's `pair` frames and the time; it returns the `Action`s the caller carries out
/// (send a frame, show a code, trust the peer, report a failure or a refusal). It does no I/O, reads no clock, and
/// takes its random nonces from the caller.
///
/// The policy: a code is valid for `codeLifetime` after it is derived (a pairing that has not reached a code is
/// abandoned after the same time); `maxWrongCodes` wrong codes in a row lock pairing with the peer for
/// `lockoutDuration`, during which the peer's attempts are aborted too. A right code resets the count.
public struct PairingMachine: Sendable, Hashable {
    /// How long a code stays valid: 2 minutes.
    public static let codeLifetime: Int64 = 120
    /// Wrong codes in a row that lock pairing: 3.
    public static let maxWrongCodes = 3
    /// How long pairing stays locked: 10 minutes.
    public static let lockoutDuration: Int64 = 600

    /// This daemon.
    public let me: PeerID
    /// The peer being paired with.
    public let peer: PeerID
    /// Where the pairing stands.
    public private(set) var phase: Phase = .idle
    /// Wrong codes entered since the last right one or the last lockout.
    public private(set) var wrongCodes = 0

    /// Where a pairing stands.
    public enum Phase: Sendable, Hashable {
        /// Nothing in progress.
        case idle
        /// We started: our commitment is sent, the peer's nonce is awaited.
        case committed(pairingID: UUID, nonce: [UInt8], expiresAt: Timestamp)
        /// The peer started: our nonce is sent, the peer's reveal is awaited.
        case answered(pairingID: UUID, commitment: [UInt8], nonce: [UInt8], expiresAt: Timestamp)
        /// Both sides hold the code; the local user may confirm it until `expiresAt`.
        case codeReady(pairingID: UUID, code: PairingCode, expiresAt: Timestamp)
        /// Too many wrong codes: no pairing with this peer until then.
        case locked(until: Timestamp)
    }

    /// What the caller must do.
    public enum Action: Sendable, Hashable {
        /// Send this frame to the peer.
        case send(PaymentMessage.Pairing)
        /// Show the code to the user (`watch`, `peers`); it is valid until the given time.
        case showCode(PairingCode, expiresAt: Timestamp)
        /// The user confirmed the right code: trust the peer from now on.
        case paired
        /// The pairing in progress ended without trust, for this reason.
        case failed(String)
        /// Too many wrong codes: pairing with the peer is locked until the given time.
        case lockedOut(until: Timestamp)
        /// A local command was refused; nothing changed but what other actions say.
        case refuse(Refusal)
    }

    /// Why a local command was refused.
    public enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// Pairing with this peer is locked until then.
        case locked(until: Timestamp)
        /// There is no code to confirm (none yet, or it expired).
        case noCode
        /// The code was wrong; this many tries are left before the lockout.
        case wrongCode(remaining: Int)

        public var description: String {
            switch self {
            case .locked(let until):
                "pairing is locked after \(PairingMachine.maxWrongCodes) wrong codes until \(until)"
            case .noCode: "no verification code to confirm: start pairing first, or again if the code expired"
            case .wrongCode(let remaining):
                "wrong verification code; \(remaining) \(remaining == 1 ? "try" : "tries") left before pairing locks"
            }
        }
    }

    /// A machine with nothing in progress.
    public init(me: PeerID, peer: PeerID) {
        self.me = me
        self.peer = peer
    }

    /// The code the user may confirm now, if any.
    public var code: (code: PairingCode, expiresAt: Timestamp)? {
        if case .codeReady(_, let code, let expiresAt) = phase { (code, expiresAt) } else { nil }
    }

    // MARK: Local commands

    /// The local user starts pairing. Does nothing if a pairing is already in progress or a code is shown.
    public mutating func start(pairingID: UUID, nonce: [UInt8], now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        switch phase {
        case .locked(let until):
            actions.append(.refuse(.locked(until: until)))
        case .idle:
            phase = .committed(pairingID: pairingID, nonce: nonce, expiresAt: now.adding(seconds: Self.codeLifetime))
            actions.append(
                .send(.init(pairingID: pairingID, step: .commit, value: PairingCode.commitment(to: nonce))))
        case .committed, .answered, .codeReady:
            break
        }
        return actions
    }

    /// The local user enters the code shown on the peer's device.
    public mutating func confirm(_ entered: PairingCode, now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        switch phase {
        case .locked(let until):
            actions.append(.refuse(.locked(until: until)))
        case .codeReady(let pairingID, let code, _):
            if entered == code {
                phase = .idle
                wrongCodes = 0
                actions.append(.paired)
            } else {
                wrongCodes += 1
                if wrongCodes >= Self.maxWrongCodes {
                    let until = now.adding(seconds: Self.lockoutDuration)
                    phase = .locked(until: until)
                    wrongCodes = 0
                    actions += [
                        .send(.init(abort: pairingID, reason: "too many wrong verification codes")),
                        .lockedOut(until: until), .refuse(.locked(until: until)),
                    ]
                } else {
                    actions.append(.refuse(.wrongCode(remaining: Self.maxWrongCodes - wrongCodes)))
                }
            }
        case .idle, .committed, .answered:
            actions.append(.refuse(.noCode))
        }
        return actions
    }

    /// The session with the peer ended: a pairing that has not reached its code cannot finish.
    public mutating func sessionLost() -> [Action] {
        switch phase {
        case .committed, .answered:
            phase = .idle
            return [.failed("the session with the peer ended")]
        case .idle, .codeReady, .locked:
            return []
        }
    }

    /// Time passes: a pairing or code past its time ends, and a lockout past its time lifts.
    public mutating func tick(now: Timestamp) -> [Action] {
        expire(now: now)
    }

    // MARK: Frames from the peer

    /// Handles the peer's `pair` frame; `nonce` is a fresh random nonce, used if this side must answer.
    public mutating func receive(_ frame: PaymentMessage.Pairing, nonce: [UInt8], now: Timestamp) -> [Action] {
        var actions = expire(now: now)
        switch (frame.step, phase) {
        case (.abort, _):
            if let current = pairingID, current == frame.pairingID {
                phase = .idle
                actions.append(.failed("the peer ended the pairing: \(frame.reason ?? "")"))
            }
        case (.commit, .locked):
            actions.append(.send(.init(abort: frame.pairingID, reason: "pairing is locked for now; try again later")))
        case (.commit, .committed(let ours, _, _)) where ours.wireString < frame.pairingID.wireString:
            // Both sides started at once: the attempt with the lower ID goes on, and the peer answers ours.
            break
        case (.commit, _):
            if frame.pairingID == pairingID { break }  // the same commit again
            if case .codeReady = phase { actions.append(.failed("the peer started a new pairing")) }
            phase = .answered(
                pairingID: frame.pairingID, commitment: frame.value ?? [], nonce: nonce,
                expiresAt: now.adding(seconds: Self.codeLifetime))
            actions.append(.send(.init(pairingID: frame.pairingID, step: .nonce, value: nonce)))
        case (.nonce, .committed(let id, let ours, _)) where id == frame.pairingID:
            let code = PairingCode(
                initiator: me, responder: peer, initiatorNonce: ours, responderNonce: frame.value ?? [])
            let expiresAt = now.adding(seconds: Self.codeLifetime)
            phase = .codeReady(pairingID: id, code: code, expiresAt: expiresAt)
            actions += [.send(.init(pairingID: id, step: .reveal, value: ours)), .showCode(code, expiresAt: expiresAt)]
        case (.reveal, .answered(let id, let commitment, let ours, _)) where id == frame.pairingID:
            let theirs = frame.value ?? []
            guard PairingCode.commitment(to: theirs) == commitment else {
                phase = .idle
                actions += [
                    .send(.init(abort: id, reason: "the revealed nonce does not match its commitment")),
                    .failed("the peer's nonce did not match its commitment"),
                ]
                break
            }
            let code = PairingCode(initiator: peer, responder: me, initiatorNonce: theirs, responderNonce: ours)
            let expiresAt = now.adding(seconds: Self.codeLifetime)
            phase = .codeReady(pairingID: id, code: code, expiresAt: expiresAt)
            actions.append(.showCode(code, expiresAt: expiresAt))
        case (.nonce, _), (.reveal, _):
            // A step of no pairing in progress here (it ended, expired, or never began): tell the peer.
            actions.append(.send(.init(abort: frame.pairingID, reason: "no such pairing in progress")))
        }
        return actions
    }

    // MARK: Helpers

    /// The ID of the pairing in progress, if any.
    private var pairingID: UUID? {
        switch phase {
        case .committed(let id, _, _), .answered(let id, _, _, _), .codeReady(let id, _, _): id
        case .idle, .locked: nil
        }
    }

    private mutating func expire(now: Timestamp) -> [Action] {
        switch phase {
        case .committed(_, _, let expiresAt), .answered(_, _, _, let expiresAt):
            guard now >= expiresAt else { return [] }
            phase = .idle
            return [.failed("the peer did not answer in time")]
        case .codeReady(_, _, let expiresAt):
            guard now >= expiresAt else { return [] }
            phase = .idle
            return [.failed("the verification code expired")]
        case .locked(let until):
            guard now >= until else { return [] }
            phase = .idle
            return []
        case .idle:
            return []
        }
    }
}
