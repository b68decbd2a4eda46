import Foundation
import InterPayCore
import InterPayStore
import InterPayTransport
import Logging

/// Pairs this daemon with peers by verification code, and keeps the trust store (PROTOCOL.md §7.9).
///
/// One `PairingMachine` per peer holds the protocol and the policy (code lifetime, wrong-code lockout); this actor
/// feeds it the user's commands, the peer's `pair` frames and the time, carries out its actions, and records a
/// confirmed pairing in the ledger's `trustedPeer` table, where it survives restarts until `untrust`.
actor PairingCoordinator {
    private let database: AppDatabase
    private let sessions: SessionManager
    private let me: PeerID
    private let logger: Logger
    private let eventContinuation: AsyncStream<PairingEvent>.Continuation
    /// Pairing events for watchers.
    nonisolated let events: AsyncStream<PairingEvent>

    private var machines: [PeerID: PairingMachine] = [:]

    init(database: AppDatabase, sessions: SessionManager, logger: Logger) {
        self.database = database
        self.sessions = sessions
        self.me = sessions.identity.peerID
        self.logger = logger
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Where pairing with one peer stands, for `peers` and `pair`.
    struct Status: Sendable {
        /// `idle`, `waiting` (the code is being derived), `code` (shown, to be confirmed) or `locked`.
        var phase: String
        /// The code to compare and confirm, while it is valid.
        var code: PairingCode?
        /// When the code expires, or when the lockout ends.
        var until: Timestamp?
    }

    // MARK: Local commands

    /// Starts pairing with `peer` (or joins the pairing in progress) and waits up to `wait` for the code.
    func start(
        with peer: PeerID, wait: Duration = .seconds(5), now: Timestamp = .now
    ) async throws(EngineError)
        -> Status
    {
        guard await sessions.currentSessions().contains(where: { $0.peerID == peer }) else {
            throw .peerUnreachable(peer.shortDescription)
        }
        var machine = machines[peer] ?? PairingMachine(me: me, peer: peer)
        let actions = machine.start(pairingID: UUID(), nonce: PairingCode.randomNonce(), now: now)
        machines[peer] = machine
        try await perform(actions, peer: peer)
        let deadline = ContinuousClock.now + wait
        while machines[peer]?.code == nil, case .committed = machines[peer]?.phase, ContinuousClock.now < deadline,
            !Task.isCancelled
        {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return status(of: peer, now: .now)
    }

    /// Confirms the code the user read on the peer's device; on success the peer is trusted from now on.
    func confirm(
        _ code: PairingCode, with peer: PeerID, now: Timestamp = .now
    ) async throws(EngineError)
        -> TrustedPeerRecord
    {
        var machine = machines[peer] ?? PairingMachine(me: me, peer: peer)
        let actions = machine.confirm(code, now: now)
        machines[peer] = machine
        try await perform(actions, peer: peer, now: now)
        guard actions.contains(.paired) else { throw .invalid("no pairing happened") }
        guard let record = try await trusted(peer) else { throw .storage("the pairing was not recorded") }
        return record
    }

    /// Forgets the pairing with `peer`; false if it was not paired.
    func untrust(_ peer: PeerID) async throws(EngineError) -> Bool {
        let removed: Bool
        do { removed = try await database.untrust(peer) } catch { throw .storage(error.description) }
        if removed { logger.notice("peer untrusted", metadata: ["id": "\(peer.shortDescription)"]) }
        return removed
    }

    /// Whether `peer` is paired (false when the ledger cannot say).
    func isPaired(_ peer: PeerID) async -> Bool {
        (try? await database.trustedPeer(id: peer)) != nil
    }

    /// Where pairing with `peer` stands now.
    func status(of peer: PeerID, now: Timestamp = .now) -> Status {
        switch machines[peer]?.phase ?? .idle {
        case .idle: Status(phase: "idle")
        case .committed, .answered: Status(phase: "waiting")
        case .codeReady(_, let code, let expiresAt):
            expiresAt > now ? Status(phase: "code", code: code, until: expiresAt) : Status(phase: "idle")
        case .locked(let until): until > now ? Status(phase: "locked", until: until) : Status(phase: "idle")
        }
    }

    // MARK: The peer and time

    /// Handles the peer's `pair` frame.
    func receive(_ frame: PaymentMessage.Pairing, from peer: PeerID, now: Timestamp = .now) async {
        var machine = machines[peer] ?? PairingMachine(me: me, peer: peer)
        let actions = machine.receive(frame, nonce: PairingCode.randomNonce(), now: now)
        machines[peer] = machine
        try? await perform(actions, peer: peer, now: now)
    }

    /// The session with `peer` ended.
    func sessionDown(_ peer: PeerID) async {
        guard var machine = machines[peer] else { return }
        let actions = machine.sessionLost()
        machines[peer] = machine
        try? await perform(actions, peer: peer)
    }

    /// Ends pairings and codes past their time.
    func tick(now: Timestamp = .now) async {
        for (peer, var machine) in machines {
            let actions = machine.tick(now: now)
            if machine.phase == .idle && machine.wrongCodes == 0 {
                machines.removeValue(forKey: peer)
            } else {
                machines[peer] = machine
            }
            try? await perform(actions, peer: peer, now: now)
        }
    }

    // MARK: Helpers

    /// Carries out a machine's actions; a refusal becomes the error of the command that caused it.
    private func perform(
        _ actions: [PairingMachine.Action], peer: PeerID, now: Timestamp = .now
    )
        async throws(EngineError)
    {
        let name = await name(of: peer)
        var refusal: PairingMachine.Refusal?
        for action in actions {
            switch action {
            case .send(let frame):
                await sessions.send(.pair(frame), to: peer)
            case .showCode(let code, let expiresAt):
                logger.info("pairing code ready", metadata: ["peer": "\(name)", "id": "\(peer.shortDescription)"])
                eventContinuation.yield(.code(peer: peer, name: name, code: code, expiresAt: expiresAt))
            case .paired:
                do {
                    try await database.trust(TrustedPeerRecord(peerID: peer, name: name, pairedAt: now))
                } catch {
                    throw .storage(error.description)
                }
                logger.notice("peer paired", metadata: ["peer": "\(name)", "id": "\(peer.shortDescription)"])
                eventContinuation.yield(.paired(peer: peer, name: name))
            case .failed(let reason):
                logger.info(
                    "pairing ended",
                    metadata: ["peer": "\(name)", "id": "\(peer.shortDescription)", "reason": "\(reason)"])
                eventContinuation.yield(.failed(peer: peer, name: name, reason: reason))
            case .lockedOut(let until):
                logger.warning(
                    "pairing locked after wrong verification codes",
                    metadata: ["peer": "\(name)", "id": "\(peer.shortDescription)", "until": "\(until)"])
                eventContinuation.yield(.locked(peer: peer, name: name, until: until))
            case .refuse(let reason):
                refusal = reason
            }
        }
        if let refusal { throw .notPermitted(refusal.description) }
    }

    private func trusted(_ peer: PeerID) async throws(EngineError) -> TrustedPeerRecord? {
        do { return try await database.trustedPeer(id: peer) } catch { throw .storage(error.description) }
    }

    private func name(of peer: PeerID) async -> String {
        if let session = await sessions.currentSessions().first(where: { $0.peerID == peer }) { return session.name }
        if let record = try? await database.peer(id: peer) { return record.name }
        return peer.shortDescription
    }
}
