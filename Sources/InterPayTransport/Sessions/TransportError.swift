public import InterPayCore

/// What went wrong in the transport layer, with the context a log line or CLI message needs.
public enum TransportError: Error, Sendable, CustomStringConvertible {
    /// The state directory or an identity file could not be read or written.
    case identityStorage(path: String, reason: String)
    /// A stored key or certificate could not be parsed.
    case identityCorrupt(path: String, reason: String)
    /// TLS could not be set up (bad key material).
    case tlsSetup(String)
    /// The peer's key does not hash to the ID it was discovered or configured with.
    case peerIDMismatch(expected: PeerID, actual: PeerID)
    /// The peer presented no certificate.
    case noPeerCertificate
    /// The first frame was not `hello`, or did not arrive in time.
    case handshakeFailed(String)
    /// No protocol version in common.
    case noCommonVersion(ours: ClosedRange<Int>, theirs: ClosedRange<Int>)
    /// A connection to ourselves (e.g. our own address as a static peer).
    case connectedToSelf
    /// The listener could not bind.
    case bindFailed(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .identityStorage(let path, let reason): "cannot store the identity at \(path): \(reason)"
        case .identityCorrupt(let path, let reason): "the identity file \(path) is damaged: \(reason)"
        case .tlsSetup(let reason): "cannot set up TLS: \(reason)"
        case .peerIDMismatch(let expected, let actual):
            "peer key mismatch: expected \(expected.shortDescription) (\(expected)), got \(actual.shortDescription) (\(actual))"
        case .noPeerCertificate: "the peer presented no certificate"
        case .handshakeFailed(let reason): "handshake failed: \(reason)"
        case .noCommonVersion(let ours, let theirs):
            "no common protocol version (ours \(ours.lowerBound)-\(ours.upperBound), theirs \(theirs.lowerBound)-\(theirs.upperBound))"
        case .connectedToSelf: "connected to ourselves"
        case .bindFailed(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
