import InterPayCore

/// What the session registry needs to know of a session.
protocol RegisteredSession {
    /// Who the session is with.
    var peerID: PeerID { get }
    /// Tells two sessions with the same peer apart.
    var serial: UInt64 { get }
    /// The source address without the port: what the per-address bound counts.
    var host: String { get }
    /// The peer dialed.
    var isInbound: Bool { get }
    /// Who dialed: decides which of two sessions with the same peer stays.
    var dialer: PeerID { get }
    /// When the session last carried a frame other than a keepalive.
    var lastUsed: ContinuousClock.Instant { get }
    /// Whether the peer is preferred (the daemon: paired); a preferred peer's session is never evicted.
    var preferred: Bool { get }
}

/// The sessions that are up, one per peer, and which one stays, makes room or is refused when a new one arrives:
/// the pure decider under `SessionManager`, which carries out what it decides (closes, logs, events).
///
/// The rules:
/// - One session per peer. A second one with the same peer replaces the first when both were dialed by the same
///   side (a reconnect), or when it was dialed by the lower of the two peer IDs; otherwise it is a duplicate and
///   refused. Both ends apply the same rule, so that two crossing dials leave the same session on both.
/// - At most `maxSessions` in all, and an inbound session from an address that holds `sessionsPerAddress` sessions
///   must make room among that address's sessions first. Room is made by evicting the session `EvictionPolicy`
///   picks; a session whose peer is preferred, or with a pairing attempt in progress, is never evicted. When there
///   is none to evict the newcomer is refused.
struct SessionRegistry<Session: RegisteredSession> {
    /// Which bound a new session meets.
    enum Bound: Equatable {
        /// Its source address holds `sessionsPerAddress` sessions: one of that address's must make room.
        case address
        /// `maxSessions` are up: one of all must make room.
        case total
    }

    /// What `register(_:)` decided.
    enum Registration {
        /// The session is registered; none was there for its peer, and no bound was met.
        case registered
        /// The session is registered in place of the peer's previous one, which is to be closed.
        case replaced(Session)
        /// The peer's session stays; the new one is to be closed.
        case duplicate
        /// The session is registered; `Session` was evicted to make room at `Bound` and is to be closed.
        case evicted(Session, Bound)
        /// The new session met `Bound` and none could make room: it is to be closed.
        case full(Bound)
    }

    /// This node's peer ID (for the rule between two sessions with the same peer).
    let localPeer: PeerID
    /// The most sessions at once.
    let maxSessions: Int
    /// The most sessions from one source address at once, for a new inbound session.
    let sessionsPerAddress: Int
    /// The sessions, by peer.
    private(set) var sessions: [PeerID: Session] = [:]
    /// The peers with a pairing attempt in progress: their sessions are never evicted.
    var pairing: Set<PeerID> = []

    init(localPeer: PeerID, maxSessions: Int, sessionsPerAddress: Int) {
        self.localPeer = localPeer
        self.maxSessions = max(1, maxSessions)
        self.sessionsPerAddress = max(1, sessionsPerAddress)
    }

    /// The session with `peer`, if one is up.
    subscript(peer: PeerID) -> Session? { sessions[peer] }

    /// Registers a new session, replacing, evicting or refusing as the type's rules say.
    mutating func register(_ session: Session) -> Registration {
        let peer = session.peerID
        if let existing = sessions[peer] {
            guard existing.dialer == session.dialer || session.dialer == min(localPeer, peer) else {
                return .duplicate
            }
            sessions[peer] = session
            return .replaced(existing)
        }
        guard let bound = bound(peer: peer, host: session.host, isInbound: session.isInbound) else {
            sessions[peer] = session
            return .registered
        }
        guard let victim = evictionCandidate(peer: peer, host: session.host, isInbound: session.isInbound) else {
            return .full(bound)
        }
        sessions.removeValue(forKey: victim.peerID)
        sessions[peer] = session
        return .evicted(victim, bound)
    }

    /// Removes `session` if it is still its peer's current one (not replaced since); true if it was.
    mutating func unregister(_ session: Session) -> Bool {
        guard let current = sessions[session.peerID], current.serial == session.serial else { return false }
        sessions.removeValue(forKey: session.peerID)
        return true
    }

    /// Says whether a pairing attempt with `peer` is in progress.
    mutating func setPairing(_ inProgress: Bool, for peer: PeerID) {
        if inProgress { pairing.insert(peer) } else { pairing.remove(peer) }
    }

    /// The bound a new session with `peer` from `host` meets, if any: none when it would replace the peer's
    /// session; an inbound one from an address holding its share first.
    func bound(peer: PeerID, host: String, isInbound: Bool) -> Bound? {
        guard sessions[peer] == nil else { return nil }
        if isInbound, sessions.values.count(where: { $0.host == host }) >= sessionsPerAddress {
            return .address
        }
        return sessions.count >= maxSessions ? .total : nil
    }

    /// The session a new one would evict, if it meets a bound: among its address's sessions when that address holds
    /// its share, else among all, as `EvictionPolicy` picks (never a preferred peer's, nor one being paired over).
    func evictionCandidate(peer: PeerID, host: String, isInbound: Bool) -> Session? {
        guard let bound = bound(peer: peer, host: host, isInbound: isInbound) else { return nil }
        let pool = bound == .address ? sessions.values.filter { $0.host == host } : Array(sessions.values)
        let candidates = pool.map { session in
            EvictionPolicy.Candidate(
                peerID: session.peerID, host: session.host, lastUsed: session.lastUsed,
                isProtected: session.preferred || pairing.contains(session.peerID))
        }
        return EvictionPolicy.victim(among: candidates).flatMap { sessions[$0] }
    }
}

extension SessionHandle: RegisteredSession {
    var peerID: PeerID { info.peerID }
    var serial: UInt64 { info.serial }
    var host: String { info.host }
    var isInbound: Bool { info.direction == .inbound }
}
