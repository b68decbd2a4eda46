import Synchronization

/// Instances whose resolution can wait: the daemon already holds a session with a peer of that name (it dialed us,
/// so we know where it is). Discovery resolves them after every other waiting instance, and never skips them: a
/// session's name is what the peer says about itself, so a false one only makes a resolution wait its turn.
///
/// On a LAN that starts at once every daemon resolves every other, one or two at a time; a pair needs only one side
/// to resolve the other and dial. Resolving first the peers that have not reached us yet brings the mesh up with
/// about half the resolutions, each of which makes every avahi-daemon on the segment read a question.
public final class ResolutionPriority: Sendable {
    private let connected = Mutex<[String: Int]>([:])

    /// An empty set: nothing waits.
    public init() {}

    /// A session with a peer that calls itself `name` came up.
    public func sessionUp(name: String) {
        connected.withLock { $0[name, default: 0] += 1 }
    }

    /// That session ended.
    public func sessionDown(name: String) {
        connected.withLock { names in
            guard let count = names[name] else { return }
            names[name] = count > 1 ? count - 1 : nil
        }
    }

    /// Whether the instance `name` can wait for the others.
    func canWait(_ name: String) -> Bool {
        connected.withLock { $0[name] != nil }
    }
}
