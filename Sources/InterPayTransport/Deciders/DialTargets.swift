import InterPayCore

/// An address the manager keeps a session with (a static peer, or a discovered one).
struct DialTarget: Sendable, Equatable {
    var host: String
    var port: Int
    /// The key the peer must present; nil: any key, pinned on first contact.
    var expectedPeerID: PeerID?
    /// The key first seen at a target that expected none.
    var pinnedPeerID: PeerID?
    /// Changes whenever the target is set again: a dial loop of an older generation stops.
    var generation: Int
    /// Dials in a row without a session after which a target that never had one is dropped; nil: never.
    var giveUpAfter: Int? = nil
    /// Whether the higher ID holds back before its first dial (see `DialTargets`); false when the other side is known
    /// to leave the first dial to us (discovery's `ResolutionSide`).
    var holdsBack = true
}

/// The dial targets and what each one's dial loop does next: the pure decider under `SessionManager`'s dial loops,
/// which carry out what it decides (sleep, wait for a session's end, dial).
///
/// The rules:
/// - A target set again (`maintain`, `resetPin`) gets a new generation; the loop of the old one stops, and a new loop
///   starts. A target keeps the key it pinned across `maintain` calls that expect none.
/// - While the expected peer has a session (through its dial or ours), the loop waits for it to end.
/// - The higher of two peer IDs holds back once before each first dial, so that the lower ID's dial (which both
///   ends keep) arrives first; not at a target set with `holdsBack: false` (the other side leaves the first dial to
///   us, so no dial of its own is on its way).
/// - After a dial, the loop backs off `attempt - 1` steps (`Backoff`); a session resets the count.
/// - A target with `giveUpAfter` that never had a session is dropped after that many dials in a row.
struct DialTargets {
    /// One dial loop's own state.
    struct Loop: Equatable {
        /// The target the loop serves.
        let key: String
        /// The target's generation when the loop started.
        let generation: Int
        /// Dials since the last session.
        var attempt = 0
        /// Whether the target ever had a session in this loop.
        var everUp = false
        /// Whether the loop held back for the lower ID's dial since the last session.
        var heldBack = false
    }

    /// What a dial loop does next.
    enum Next: Equatable {
        /// The target is gone or was set again: the loop ends.
        case stop
        /// The expected peer has a session: wait for it to end.
        case waitForSessionEnd(PeerID)
        /// Give the lower ID's dial from `host` a moment to arrive, and let its handshake finish.
        case holdBack(PeerID, host: String)
        /// Dial the target.
        case dial(DialTarget)
    }

    /// How a dial ended.
    enum Outcome: Equatable {
        /// A session with the peer came up (and has ended).
        case session(PeerID)
        /// No session.
        case failed
    }

    /// What a dial loop does after a dial.
    enum AfterDial: Equatable {
        /// Sleep `Backoff.delay(attempt:)` of this number, then go on.
        case backOff(Int)
        /// The target was dropped after this many dials without a session: the loop ends.
        case gaveUp(Int)
    }

    private(set) var targets: [String: DialTarget] = [:]

    /// Where `peer` listens (`host:port`), from the first target (by key) that expects or pinned its key: a peer
    /// that dialed us shows its listening address instead of its connection's ephemeral port. Nil when no target
    /// names it.
    func listeningAddress(of peer: PeerID) -> String? {
        targets.sorted { $0.key < $1.key }.first { $0.value.expectedPeerID == peer || $0.value.pinnedPeerID == peer }
            .map { "\($0.value.host):\($0.value.port)" }
    }
    private var nextGeneration = 0

    /// The target under `key`.
    subscript(key: String) -> DialTarget? { targets[key] }

    /// Sets a target (again); returns the peer whose session-end waiters must wake (the old expected peer), so that
    /// the old loop sees its generation has passed.
    mutating func maintain(
        key: String, host: String, port: Int, expectedPeerID: PeerID?, giveUpAfter: Int?, holdsBack: Bool = true
    )
        -> PeerID?
    {
        nextGeneration += 1
        let existing = targets[key]
        targets[key] = DialTarget(
            host: host, port: port, expectedPeerID: expectedPeerID ?? existing?.pinnedPeerID,
            pinnedPeerID: existing?.pinnedPeerID, generation: nextGeneration, giveUpAfter: giveUpAfter,
            holdsBack: holdsBack)
        return existing?.expectedPeerID
    }

    /// Drops a target; returns the peer whose session-end waiters must wake.
    mutating func stop(key: String) -> PeerID? {
        targets.removeValue(forKey: key)?.expectedPeerID
    }

    /// Drops every target.
    mutating func removeAll() { targets.removeAll() }

    /// Pins `peer` as the key of a target that expected none.
    mutating func pin(_ peer: PeerID, forKey key: String) {
        guard let target = targets[key], target.expectedPeerID == nil else { return }
        targets[key]?.expectedPeerID = peer
        targets[key]?.pinnedPeerID = peer
    }

    /// Forgets a target's pinned key and expects `expectedPeerID` (nil: pin the next key seen), as a new generation.
    /// Returns nil when there is no such target, else the peer whose session-end waiters must wake (`.some(nil)`:
    /// none).
    mutating func resetPin(forKey key: String, expectedPeerID: PeerID?) -> PeerID?? {
        guard var target = targets[key] else { return nil }
        let old = target.expectedPeerID
        target.pinnedPeerID = nil
        target.expectedPeerID = expectedPeerID
        nextGeneration += 1
        target.generation = nextGeneration
        targets[key] = target
        return .some(old)
    }

    /// A new loop for the target under `key`; nil when there is none.
    func loop(for key: String) -> Loop? {
        targets[key].map { Loop(key: key, generation: $0.generation) }
    }

    /// What `loop` does next, given whether a peer has a session now.
    func next(_ loop: inout Loop, localPeer: PeerID, hasSession: (PeerID) -> Bool) -> Next {
        guard let target = targets[loop.key], target.generation == loop.generation else { return .stop }
        if let id = target.expectedPeerID, hasSession(id) {
            loop.attempt = 0
            loop.everUp = true
            loop.heldBack = false
            return .waitForSessionEnd(id)
        }
        if target.holdsBack, let id = target.expectedPeerID, loop.attempt == 0, !loop.heldBack, localPeer > id {
            loop.heldBack = true
            return .holdBack(id, host: target.host)
        }
        return .dial(target)
    }

    /// Records how `loop`'s dial of `target` ended: pins the key a target without one met, counts the dial, and
    /// drops a target that never had a session once it reaches `giveUpAfter`.
    mutating func dialed(_ loop: inout Loop, target: DialTarget, outcome: Outcome) -> AfterDial {
        if case .session(let peer) = outcome, target.expectedPeerID == nil {
            targets[loop.key]?.expectedPeerID = peer
            targets[loop.key]?.pinnedPeerID = peer
        }
        let wasSession = outcome != .failed
        loop.everUp = loop.everUp || wasSession
        loop.attempt = wasSession ? 0 : loop.attempt + 1
        if wasSession { loop.heldBack = false }
        if !loop.everUp, let limit = target.giveUpAfter, loop.attempt >= limit,
            targets[loop.key]?.generation == loop.generation
        {
            targets.removeValue(forKey: loop.key)
            return .gaveUp(loop.attempt)
        }
        return .backOff(max(loop.attempt - 1, 0))
    }
}
