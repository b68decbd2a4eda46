import InterPayCore

/// Which session makes room for a new one when sessions are at a bound (`SessionManager`), as a pure function.
///
/// A session is never evicted when it is protected: its peer is preferred (the daemon: paired), or a pairing
/// attempt with it is in progress (`SessionManager.setPairingInProgress(_:for:)`), so that fresh keys cannot cut the
/// session two users are pairing over. Among the others, eviction starts from the source address that holds the
/// most sessions, and there takes the session idle longest: a host that opens sessions under many fresh keys
/// evicts its own first, not the sessions of the hosts around it.
struct EvictionPolicy {
    /// One session as the policy sees it.
    struct Candidate: Sendable, Hashable {
        /// The peer of the session.
        var peerID: PeerID
        /// The session's source address, without the port (`SessionInfo.host`).
        var host: String
        /// When the session last carried a frame other than a keepalive.
        var lastUsed: ContinuousClock.Instant
        /// A preferred peer's session, or one with a pairing attempt in progress: never evicted.
        var isProtected: Bool
    }

    /// The session to evict among `sessions`, or nil when every one is protected.
    static func victim(among sessions: [Candidate]) -> PeerID? {
        var held: [String: Int] = [:]
        for session in sessions { held[session.host, default: 0] += 1 }
        return sessions.filter { !$0.isProtected }.min { one, other in
            let (mine, theirs) = (held[one.host] ?? 0, held[other.host] ?? 0)
            return mine != theirs ? mine > theirs : one.lastUsed < other.lastUsed
        }?.peerID
    }
}
