import InterPayCore

/// Which addresses to keep dialing for what DNS-SD reports: pure, so that a spoofed announcement's effect is
/// tested alone.
///
/// Announcements are not authenticated: any host can announce an instance under any name, with any TXT `id`, and
/// re-announce another host's instance name pointing elsewhere. A dial target is therefore keyed by the TXT `id`
/// and the address it was announced with (`dnssd ID HOST:PORT`), never by the instance name alone: a spoofed
/// announcement adds a target of its own — whose TLS handshake fails unless the announcer holds the key of that ID
/// — and neither redirects nor replaces the real peer's. Each instance keeps at most `maxPerInstance` targets
/// (newest last; the oldest is dropped first), so announcements cannot grow them without bound; an instance that
/// disappears takes its targets with it unless another instance still announces the same one. (A goodbye can be
/// spoofed too: the daemon keeps dialing a peer that has a session when its instance "disappears".)
struct DiscoveryTargets: Sendable {
    /// One address to dial, expecting one peer ID there.
    struct Target: Sendable, Hashable {
        var peerID: PeerID
        var host: String
        var port: Int

        /// The session manager's key for it.
        var key: String { "dnssd \(peerID) \(host):\(port)" }
    }

    /// What the session manager must do.
    enum Command: Sendable, Hashable {
        case maintain(Target)
        case stop(Target)
    }

    /// Targets kept per instance.
    static let maxPerInstance = 4

    private var byInstance: [String: [Target]] = [:]

    /// An instance was resolved (appeared or changed) to `target`.
    mutating func resolved(instance: String, to target: Target) -> [Command] {
        var targets = byInstance[instance, default: []]
        targets.removeAll { $0 == target }
        targets.append(target)
        var commands: [Command] = [.maintain(target)]
        while targets.count > Self.maxPerInstance {
            let dropped = targets.removeFirst()
            byInstance[instance] = targets
            if !isAnnounced(dropped) { commands.append(.stop(dropped)) }
        }
        byInstance[instance] = targets
        return commands
    }

    /// An instance is gone, or is not to be dialed (no common protocol version).
    mutating func removed(instance: String) -> [Command] {
        guard let targets = byInstance.removeValue(forKey: instance) else { return [] }
        return targets.filter { !isAnnounced($0) }.map { .stop($0) }
    }

    /// The targets kept now, for tests and diagnostics.
    var all: Set<Target> { Set(byInstance.values.joined()) }

    private func isAnnounced(_ target: Target) -> Bool {
        byInstance.values.contains { $0.contains(target) }
    }
}
