/// One source of settings — command-line flags, the environment, or the config file — with every value optional.
///
/// `DaemonConfiguration.resolve` merges three of them key by key: flags win over the environment, which wins over
/// the file, which wins over the defaults.
public struct DaemonSettings: Sendable, Equatable {
    /// Display name (`name`).
    public var name: String?
    /// Listen address (`listen`).
    public var listen: String?
    /// Listen port, 0 for a free one (`port`).
    public var port: Int?
    /// State directory (`state_dir`).
    public var stateDirectory: String?
    /// Log level name (`log_level`).
    public var logLevel: String?
    /// Whose payment requests are taken: `any` or `paired` (`accept_from`).
    public var acceptFrom: String?
    /// Control socket path (`control.socket`).
    public var socket: String?
    /// Group allowed on the control socket, a name or a number (`control.group`).
    public var socketGroup: String?
    /// Whether the web app is served (`web.enabled`).
    public var web: Bool?
    /// Whether this daemon settles with signed receipts and announces the `receipts` capability (`receipts.enabled`).
    public var receipts: Bool?
    /// Where the web app listens, a loopback `ADDR:PORT` (`web.listen`).
    public var webListen: String?
    /// Whether DNS-SD is on (`discovery.enabled`).
    public var discovery: Bool?
    /// Static peers as `HOST:PORT` (`discovery.peers`).
    public var peers: [String]?
    /// Preferred currency for showing amounts (`rates.currency`).
    public var currency: String?
    /// ExchangeRate-API v6 URL template with `{base}` and `{key}` (`rates.url`).
    public var ratesURL: String?
    /// The environment variable holding the rates API key (`rates.api_key_env`).
    public var ratesAPIKeyVariable: String?
    /// Total time allowed for one rates fetch, in seconds (`rates.timeout`).
    public var ratesTimeout: Int64?
    /// Largest frame accepted, in bytes (`limits.max_frame_bytes`).
    public var maxFrameBytes: Int?
    /// TLS + hello deadline in seconds (`limits.handshake_timeout`).
    public var handshakeTimeout: Int64?
    /// Keepalive interval in seconds (`limits.keepalive_interval`).
    public var keepaliveInterval: Int64?
    /// Pending incoming requests per peer at most (`limits.max_pending_per_peer`).
    public var maxPendingPerPeer: Int?
    /// Incoming requests per peer per minute at most (`limits.max_requests_per_minute`).
    public var maxRequestsPerMinute: Int?
    /// Inbound connections that have not finished TLS and `hello` at most (`limits.max_unauthenticated`).
    public var maxUnauthenticated: Int?
    /// Established sessions at most (`limits.max_sessions`).
    public var maxSessions: Int?
    /// Fixed-length subscription periods in seconds instead of calendar weeks, months and years
    /// (`subscriptions.period_seconds`; for demonstrations and tests).
    public var subscriptionPeriodSeconds: Int64?
    /// The time zone the due dates of this side's subscriptions are kept in (`subscriptions.time_zone`).
    public var subscriptionTimeZone: String?

    /// No setting at all.
    public init() {}
}
