public import Foundation
public import InterPayCore

/// What an established session looks like from outside.
public struct SessionInfo: Sendable, Hashable {
    /// Who dialed the connection.
    public enum Direction: String, Sendable, Hashable {
        /// We dialed.
        case outbound
        /// The peer dialed.
        case inbound
    }

    /// The peer's ID, proven by its TLS key.
    public let peerID: PeerID
    /// The name the peer gave in `hello`.
    public let name: String
    /// The negotiated protocol version.
    public let version: Int
    /// The peer's address as `host:port`.
    public let remoteAddress: String
    /// Who dialed.
    public let direction: Direction
    /// When the session came up.
    public let since: Date
    /// The optional features the peer announced in `hello`.
    public let capabilities: [String]
    /// Tells sessions apart: each session of a manager has its own number (a new session with the same peer has a
    /// new one).
    public let serial: UInt64

    /// The peer's address without the port (`remoteAddress` is always written `host:port`): the source address that
    /// per-address bounds count.
    public var host: String {
        guard let colon = remoteAddress.lastIndex(of: ":") else { return remoteAddress }
        return String(remoteAddress[..<colon])
    }
}

/// Something that happened to the sessions.
public enum SessionEvent: Sendable {
    /// A session finished TLS and `hello`.
    case up(SessionInfo)
    /// The session with a peer ended (and was not replaced by another connection).
    case down(SessionInfo, reason: String)
    /// A frame from a peer (everything but the transport's own `hello`, `ping`, `pong` and `close`).
    case message(PaymentMessage, from: PeerID)
    /// A connection was refused before it became a session (wrong key, no common version, timeout...).
    case refused(remoteAddress: String, reason: String)
}
