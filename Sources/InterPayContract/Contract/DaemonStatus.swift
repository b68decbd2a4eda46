/// The answer of the `status` method, shared by the daemon, the CLI (`interpay status --json`) and the web app
/// (`GET /api/status`). Its field names are a stable contract (docs/control-api.md).
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
    /// The ledger's size and row counts; nil when it could not be measured.
    @Nullable public var ledger: LedgerStatus?

    /// The ledger's size, what it holds, and what retention removed (`[ledger] retention`).
    public struct LedgerStatus: Codable, Sendable, Equatable {
        /// The database file's size in bytes (without its write-ahead log).
        public var bytes: Int64
        /// Bytes of free pages in it, given back at the next retention pass.
        public var freeBytes: Int64
        /// Payments kept.
        public var payments: Int64
        /// Their events.
        public var events: Int64
        /// Frames waiting for a peer's ack.
        public var queuedFrames: Int64
        /// Payments removed by retention so far.
        public var pruned: Int64
        /// Days a rejected, cancelled or expired payment is kept after its last change.
        public var retentionDays: Int64

        /// A ledger status.
        public init(
            bytes: Int64, freeBytes: Int64, payments: Int64, events: Int64, queuedFrames: Int64, pruned: Int64,
            retentionDays: Int64
        ) {
            self.bytes = bytes
            self.freeBytes = freeBytes
            self.payments = payments
            self.events = events
            self.queuedFrames = queuedFrames
            self.pruned = pruned
            self.retentionDays = retentionDays
        }
    }

    /// A status.
    public init(
        name: String, id: String, shortID: String, port: Int64, version: String, uptimeSeconds: Int64,
        discovery: String, sessions: Int64, webPort: Int64?, currency: String? = nil, ledger: LedgerStatus? = nil
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
        self.ledger = ledger
    }
}

/// The answer of `backup`.
public struct BackupInfo: Codable, Sendable, Equatable {
    /// Where the daemon wrote the file (in its state directory, mode 0600).
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// Whether it is encrypted with a passphrase.
    public var encrypted: Bool
    /// The peer ID it restores.
    public var peerID: String
    /// The payments the ledger in it holds.
    public var payments: Int64

    /// An answer.
    public init(path: String, bytes: Int64, encrypted: Bool, peerID: String, payments: Int64) {
        self.path = path
        self.bytes = bytes
        self.encrypted = encrypted
        self.peerID = peerID
        self.payments = payments
    }
}
