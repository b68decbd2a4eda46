/// The answer of the `status` method, shared by the daemon, the CLI (`interpay status --json`) and the web app
/// (`GET /api/status`). Its field names are a stable contract (README).
public struct DaemonStatus: Codable, Sendable, Equatable {
    /// The display name.
    public var name: String
    /// The full peer ID.
    public var id: String
    /// The short peer ID people compare.
    public var shortID: String
    /// The peer listener's port.
    public var port: Int64
    /// The daemon's version.
    public var version: String
    /// Seconds since the daemon started.
    public var uptimeSeconds: Int64
    /// DNS-SD state: `starting`, `registered`, `off`, ...
    public var discovery: String
    /// Established peer sessions.
    public var sessions: Int64
    /// The web app's port on loopback; nil when the web app is off.
    @Nullable public var webPort: Int64?
    /// The preferred currency amounts are also shown in (`rates.currency`); nil when none is set.
    @Nullable public var currency: String?

    /// A status.
    public init(
        name: String, id: String, shortID: String, port: Int64, version: String, uptimeSeconds: Int64,
        discovery: String, sessions: Int64, webPort: Int64?, currency: String? = nil
    ) {
        self.name = name
        self.id = id
        self.shortID = shortID
        self.port = port
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.discovery = discovery
        self.sessions = sessions
        self.webPort = webPort
        self.currency = currency
    }
}
