import Synchronization

/// Instances whose resolution can wait: the daemon already holds a session with a peer of that name (it dialed us,
/// so we know where it is). Discovery resolves them after every other waiting instance, and never skips them: a
/// session's name is what the peer says about itself, so a false one only makes a resolution wait its turn.
///
/// On a LAN that starts at once every daemon resolves every other, one or two at a time; a pair needs only one side
/// to resolve the other and dial. Resolving first the peers that have not reached us yet brings the mesh up with
/// about half the resolutions, each of which makes every avahi-daemon on the segment read a question.
///
/// Kept per peer, not per name: a session replaced by a newer one of the same peer brings only the new one `up`, so a
/// count per name went up twice and down once, and the name stayed "connected" for good (a renamed peer's old name
/// too: ~140 bytes per replaced session under session churn).
public final class ResolutionPriority: Sendable {
    private struct State {
        /// Each peer with a session up (by its ID's text), and the name it gave.
        var peers: [String: String] = [:]
        /// How many of those peers gave each name.
        var names: [String: Int] = [:]

        mutating func remove(_ peer: String) {
            guard let name = peers.removeValue(forKey: peer), let count = names[name] else { return }
            names[name] = count > 1 ? count - 1 : nil
        }
    }

    private let state = Mutex(State())
    /// Told the name of each session that comes up (`whenSessionUp`), by owner.
    private let listeners = Mutex<[ObjectIdentifier: @Sendable (String) -> Void]>([:])

    /// An empty set: nothing waits.
    public init() {}

    /// A session with `peer` (its ID's text), which calls itself `name`, came up; it replaces what an earlier
    /// session of that peer said.
    public func sessionUp(peer: String, name: String) {
        state.withLock { state in
            state.remove(peer)
            state.peers[peer] = name
            state.names[name, default: 0] += 1
        }
        for listener in listeners.withLock({ Array($0.values) }) { listener(name) }
    }

    /// Calls `listener` with the name of every session that comes up from now on, until `owner` stops listening.
    func whenSessionUp(owner: AnyObject, _ listener: @escaping @Sendable (String) -> Void) {
        listeners.withLock { $0[ObjectIdentifier(owner)] = listener }
    }

    /// Stops calling `owner`'s listener.
    func stopListening(owner: AnyObject) {
        _ = listeners.withLock { $0.removeValue(forKey: ObjectIdentifier(owner)) }
    }

    /// `peer`'s session ended.
    public func sessionDown(peer: String) {
        state.withLock { $0.remove(peer) }
    }

    /// Whether the instance `name` can wait for the others.
    func canWait(_ name: String) -> Bool {
        state.withLock { $0.names[name] != nil }
    }

    /// Peers tracked now.
    var trackedPeers: Int { state.withLock { $0.peers.count } }
}
