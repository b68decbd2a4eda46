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
///
/// Announcements also cost dials: 200 fake instances whose SRV records pointed at a third host once made a daemon
/// dial that host 1,826 times in 90 s, and every daemon of the LAN does the same. So one host address is the target
/// of at most `maxPerHost` targets and there are at most `maxTotal` in all: a target beyond either is not dialed
/// (the targets already kept stay: announced first, most likely the real peers, who dial us anyway). The session
/// manager gives up on a target whose handshakes never succeeded after `giveUpAfter` tries, until its announcement
/// changes.
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
    /// Targets at one host address (a host runs one daemon per user at most; a few users share a till).
    static let maxPerHost = 8
    /// Targets in all (the session manager's default session bound).
    static let maxTotal = 256
    /// Dials of a target that never completed a handshake before the session manager gives up on it.
    static let giveUpAfter = 6

    /// Targets not dialed because of `maxPerHost` or `maxTotal`, since the start.
    private(set) var refused = 0

    private var byInstance: [String: [Target]] = [:]

    /// An instance was resolved (appeared or changed) to `target`.
    mutating func resolved(instance: String, to target: Target) -> [Command] {
        var targets = byInstance[instance, default: []]
        if !isAnnounced(target) {
            let all = self.all
            let atHost = all.lazy.filter { $0.host == target.host }.count
            guard atHost < Self.maxPerHost, all.count < Self.maxTotal else {
                refused += 1
                return []
            }
        }
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
