public import InterPayCore

/// A resolved `_interpay._tcp` instance of another daemon: where to dial it and which key to expect.
public struct DiscoveredPeer: Sendable, Hashable {
    /// The DNS-SD instance name, for display and as the key of this instance; it never identifies a peer.
    public let serviceName: String
    /// The peer ID from TXT `id`: the key the dialer must find at the other end.
    public let peerID: PeerID
    /// The protocol versions from TXT `v` (ascending, `[1]` when the key is missing).
    public let versions: [Int]
    /// The SRV target host, without the trailing dot (e.g. `ipsb-1a2b-h1.local`).
    public let hostName: String
    /// The address of `hostName` on `interfaceIndex`: an IPv4 dotted quad, or IPv6 text (link-local addresses
    /// carry a `%interface` scope) when the host has no IPv4 address there.
    public let address: String
    /// The TCP port from the SRV record.
    public let port: Int
    /// The interface the instance was resolved on.
    public let interfaceIndex: UInt32
    /// Whether the pair is this side's to resolve and dial first (`ResolutionSide`): the other side leaves it a
    /// moment, so a dial need not hold back for the other's.
    public let dialsFirst: Bool

    /// A peer as reported by discovery; public so that tests of consumers can build one.
    public init(
        serviceName: String, peerID: PeerID, versions: [Int], hostName: String, address: String, port: Int,
        interfaceIndex: UInt32, dialsFirst: Bool = false
    ) {
        self.serviceName = serviceName
        self.peerID = peerID
        self.versions = versions
        self.hostName = hostName
        self.address = address
        self.port = port
        self.interfaceIndex = interfaceIndex
        self.dialsFirst = dialsFirst
    }
}
