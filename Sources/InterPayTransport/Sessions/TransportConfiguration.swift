public import InterPayCore

/// How the transport listens, greets and keeps sessions alive.
public struct TransportConfiguration: Sendable {
    /// The display name sent in `hello`.
    public var displayName: String
    /// Address to listen on.
    public var host: String
    /// Port to listen on; 0 picks a free one (advertised through DNS-SD).
    public var port: Int
    /// Protocol versions this daemon speaks.
    public var versions: ClosedRange<Int>
    /// Capabilities announced in `hello`.
    public var capabilities: [String]
    /// Software name and version for `hello`.
    public var agent: String
    /// A connection that has not completed TLS and `hello` within this time is closed.
    public var handshakeTimeout: Duration
    /// A `ping` is sent this often; a peer silent for three intervals is dropped.
    public var keepaliveInterval: Duration
    /// Largest frame accepted (at most 64 KiB).
    public var maxFrameSize: Int
    /// Delays between reconnect attempts.
    public var reconnectBackoff: Backoff
    /// The most inbound connections that may be in TLS or waiting for `hello` at once; more are closed at once.
    public var maxUnauthenticated: Int
    /// The most of those `maxUnauthenticated` places one source address may hold, so that one host cannot take them
    /// all and keep every other peer out; nil for a quarter of `maxUnauthenticated` (at least one).
    public var maxUnauthenticatedPerAddress: Int?
    /// The most established sessions at once. A new session beyond it evicts the idlest session of a peer the
    /// daemon does not prefer (see `SessionManager.preferPeers(_:)`), or is refused when there is none.
    public var maxSessions: Int
    /// The most of those `maxSessions` sessions whose peers dialed from one source address; nil for a quarter of
    /// `maxSessions` (at least one). A new inbound session from an address that holds this many evicts that
    /// address's idlest session (never a preferred peer's or one being paired over), or is refused: fresh keys from
    /// one host then churn only that host's sessions.
    public var maxSessionsPerAddress: Int?
    /// The frames queued for one peer and not yet written that tell a peer that does not read: one that lets this
    /// many pile up and reads nothing for 5 seconds, or lets eight times as many pile up, is disconnected. (A peer
    /// that reads slowly may take a burst, such as the resend of a long outbox, beyond this bound.)
    public var maxOutboundFrames: Int
    /// The most dials in their connect, TLS and `hello` at once; a further dial waits for one to end. With many
    /// targets (a LAN starting at once, or announcements pointing anywhere) this spreads the handshakes' CPU
    /// instead of starting them all and timing half of them out.
    public var maxConcurrentDials: Int

    /// A configuration with the protocol's defaults.
    public init(
        displayName: String, host: String = "0.0.0.0", port: Int = 0, versions: ClosedRange<Int> = 1...1,
        capabilities: [String] = [], agent: String = "interpayd",
        handshakeTimeout: Duration = .seconds(5), keepaliveInterval: Duration = .seconds(15),
        maxFrameSize: Int = Limits.maxFrameSize, reconnectBackoff: Backoff = Backoff(),
        maxUnauthenticated: Int = Self.defaultMaxUnauthenticated, maxUnauthenticatedPerAddress: Int? = nil,
        maxSessions: Int = Self.defaultMaxSessions, maxSessionsPerAddress: Int? = nil,
        maxOutboundFrames: Int = Self.defaultMaxOutboundFrames, maxConcurrentDials: Int = Self.defaultMaxConcurrentDials
    ) {
        self.displayName = displayName
        self.host = host
        self.port = port
        self.versions = versions
        self.capabilities = capabilities
        self.agent = agent
        self.handshakeTimeout = handshakeTimeout
        self.keepaliveInterval = keepaliveInterval
        self.maxFrameSize = maxFrameSize
        self.reconnectBackoff = reconnectBackoff
        self.maxUnauthenticated = maxUnauthenticated
        self.maxUnauthenticatedPerAddress = maxUnauthenticatedPerAddress
        self.maxSessions = maxSessions
        self.maxSessionsPerAddress = maxSessionsPerAddress
        self.maxOutboundFrames = maxOutboundFrames
        self.maxConcurrentDials = max(1, maxConcurrentDials)
    }

    /// The default bound on dials in their handshake at once.
    public static let defaultMaxConcurrentDials = 16

    /// The default bound on connections that have not finished TLS and `hello`.
    public static let defaultMaxUnauthenticated = 64

    /// The default bound on established sessions.
    public static let defaultMaxSessions = 256

    /// The bound on sessions from one source address: `maxSessionsPerAddress`, else a quarter of `maxSessions`
    /// (at least one).
    public var sessionsPerAddress: Int {
        maxSessionsPerAddress ?? max(1, maxSessions / 4)
    }

    /// The default bound on frames queued for one peer.
    public static let defaultMaxOutboundFrames = 1_024

    /// The default share of the unauthenticated places one address may hold: a quarter, at least one.
    public static func defaultMaxUnauthenticatedPerAddress(of limit: Int) -> Int {
        max(1, limit / 4)
    }
}
