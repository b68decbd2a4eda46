public import Foundation
public import InterPayCore

/// What pairing reports to watchers (`interpay watch`), in commit order among the engine's events.
public enum PairingEvent: Sendable {
    /// The peer sent a commit while the local user has not started pairing with it; nothing was answered. The user
    /// pairs by running `interpay pair` with the peer's short ID. `heldBack`: how many such notices (all peers
    /// together) were held back by the daemon-wide budget since the last one reported.
    case requested(peer: PeerID, name: String, heldBack: Int)
    /// The local user started an attempt.
    case started(peer: PeerID, name: String, attemptID: UUID)
    /// Both sides derived a verification code; the user compares and confirms it before it expires.
    case code(peer: PeerID, name: String, code: PairingCode, expiresAt: Timestamp)
    /// The local user confirmed the right code: the peer is trusted.
    case paired(peer: PeerID, name: String)
    /// An attempt ended without trust; `failures` attempts now count toward the lockout.
    case failed(peer: PeerID, name: String, reason: String, failures: Int)
    /// Too many failed attempts: pairing with the peer is locked until then.
    case locked(peer: PeerID, name: String, until: Timestamp)
}
