public import InterPayCore

/// What this daemon advertises with DNS-SD: one `_interpay._tcp` instance.
///
/// The TXT record carries exactly two keys (protocol §2.1): `v`, the supported protocol versions as ascending
/// decimal integers separated by `,`, and `id`, the canonical text form of the peer ID. Nothing else is ever put
/// in TXT: multicast DNS is readable by everyone on the link.
public struct Advertisement: Sendable, Hashable {
    /// The instance name (the daemon's display name). Longer than 63 UTF-8 bytes, it is cut at a code point
    /// boundary. Avahi may register a different name after a conflict (e.g. `Alice #2`); see
    /// `DiscoveryEvent.registered(name:)`.
    public var name: String
    /// The TCP port the daemon listens on (1–65535).
    public var port: Int
    /// The daemon's peer ID, advertised as TXT `id`.
    public var peerID: PeerID
    /// The protocol versions the daemon supports, advertised as TXT `v` (sorted, without duplicates).
    public var versions: [Int]

    /// An advertisement; nothing is checked before `validate()` or `ServiceDiscovery.events()`.
    public init(name: String, port: Int, peerID: PeerID, versions: [Int]) {
        self.name = name
        self.port = port
        self.peerID = peerID
        self.versions = versions
    }

    /// Checks that the advertisement can be registered: a non-empty name, a port in 1–65535, and at least one
    /// positive version.
    public func validate() throws(DiscoveryError) {
        guard !name.isEmpty else { throw .invalidAdvertisement("the service name is empty") }
        guard (1...65_535).contains(port) else {
            throw .invalidAdvertisement("port \(port) is not in 1–65535")
        }
        guard !versions.isEmpty else { throw .invalidAdvertisement("no protocol version to advertise") }
        guard versions.allSatisfy({ $0 > 0 }) else {
            throw .invalidAdvertisement("protocol versions must be positive, got \(versions)")
        }
        guard TXTRecord.encode(peerID: peerID, versions: versions) != nil else {
            throw .invalidAdvertisement("too many protocol versions for one TXT string: \(versions)")
        }
    }

    /// The name actually asked for: `name` cut to at most 63 UTF-8 bytes at a code point boundary.
    var instanceName: String { ServiceInstanceName.truncated(name) }
}
