import InterPayCore

/// What pairing reports to watchers (`interpay watch`).
enum PairingEvent: Sendable {
    /// Both sides derived a verification code; the user compares and confirms it before it expires.
    case code(peer: PeerID, name: String, code: PairingCode, expiresAt: Timestamp)
    /// The local user confirmed the right code: the peer is trusted.
    case paired(peer: PeerID, name: String)
    /// A pairing ended without trust.
    case failed(peer: PeerID, name: String, reason: String)
    /// Too many wrong codes: pairing with the peer is locked until then.
    case locked(peer: PeerID, name: String, until: Timestamp)
}
