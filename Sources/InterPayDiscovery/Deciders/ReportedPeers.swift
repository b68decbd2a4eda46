/// What the consumer of a discovery session was told about each instance name, and so what a resolution, a
/// withdrawal, an instance found not to be a peer, or a sweep after reconnecting reports: the pure decider under
/// `DiscoverySession`'s reporting.
///
/// An instance is reported `appeared` when it first resolves to a peer, `changed` when a later resolution differs
/// (another address, port, ID or version), nothing when it resolves the same again, and `disappeared` once when it
/// goes while reported. What was reported outlives an outage of avahi-daemon: the consumer keeps its peers until the
/// browser has had time to see them again.
struct ReportedPeers: Sendable, Hashable {
    /// The peer reported for each instance name.
    private(set) var peers: [String: DiscoveredPeer] = [:]

    /// The peer reported for the instance `name`, if any.
    subscript(name: String) -> DiscoveredPeer? { peers[name] }

    /// The instance resolved to `peer`: the event to report, if any.
    mutating func resolved(_ peer: DiscoveredPeer) -> DiscoveryEvent? {
        let previous = peers.updateValue(peer, forKey: peer.serviceName)
        guard let previous else { return .appeared(peer) }
        return previous == peer ? nil : .changed(peer)
    }

    /// The instance `name` is gone, or is no peer to report: `disappeared` if it was reported.
    mutating func gone(_ name: String) -> DiscoveryEvent? {
        guard let peer = peers.removeValue(forKey: name) else { return nil }
        return .disappeared(serviceName: name, peerID: peer.peerID)
    }
}
