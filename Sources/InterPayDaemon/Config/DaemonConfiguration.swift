public import Foundation
import InterPayControl
import InterPayControlClient
public import InterPayCore
public import InterPayEngine
public import InterPayRates
import InterPayTransport
public import InterPayWeb
public import Logging

/// Everything `interpayd` needs to run, after flags are parsed.
public struct DaemonConfiguration: Sendable {
    /// The display name: the DNS-SD instance name and the name in `hello`.
    public var name: String
    /// Where the identity (and later the ledger) is kept.
    public var stateDirectory: URL
    /// Address to listen on.
    public var listenHost: String
    /// Port to listen on; 0 picks a free one, which DNS-SD advertises.
    public var port: Int
    /// Peers to keep sessions with whatever discovery says.
    public var staticPeers: [StaticPeer]
    /// Whether to advertise and browse with DNS-SD.
    public var discoveryEnabled: Bool
    /// The version reported in `hello` (`interpayd/VERSION`).
    public var version: String
    /// Path of the control socket.
    public var socketPath: String
    /// Group allowed on the control socket besides our own user and root (socket 0660), if any.
    public var socketGroupID: UInt32?
    /// Whether the web app is served (`web.enabled`).
    public var webEnabled: Bool = true
    /// Whether a request, an offer or a pairing attempt is shown as a desktop notification on the user's session
    /// bus, when there is one (`notifications.desktop`).
    public var desktopNotifications: Bool = true
    /// Where the web app listens when it is served, always a loopback address (`web.listen`).
    public var webAddress: WebListenAddress = .default
    /// Where the web app listens, or nil when it is off (`--no-web`); setting nil turns it off.
    public var webListen: WebListenAddress? {
        get { webEnabled ? webAddress : nil }
        set {
            webEnabled = newValue != nil
            if let newValue { webAddress = newValue }
        }
    }
    /// Where the Prometheus metrics are served (`[metrics] listen`, always a loopback address); nil: not served.
    public var metricsListen: WebListenAddress?
    /// The file holding the metrics token (`[metrics] token_file`); nil: `metrics-token` in the state directory.
    public var metricsTokenFile: String?
    /// The metrics token's file as used.
    public var metricsTokenPath: String {
        metricsTokenFile ?? stateDirectory.appending(path: "metrics-token").path
    }
    /// The account pattern of a payment's peer in exported books (`[export] account`); nil: the CLI's default.
    public var exportAccount: String?
    /// The configuration file read at start, if one was: a backup carries it.
    public var configurationFile: String?
    /// The lowest level logged.
    public var logLevel: Logger.Level = .info
    /// Whose payment requests are taken: anyone's (flagged unverified unless paired), or paired peers' only.
    public var acceptFrom: AcceptPolicy = .any
    /// The currency amounts are shown in, if the user chose one.
    public var preferredCurrency: CurrencyCode?
    /// The exchange-rate source: an ExchangeRate-API v6 URL template with `{base}` (and `{key}`).
    public var ratesURLTemplate: String = ExchangeRateAPIProvider.defaultURLTemplate
    /// The rates API key, if one is configured (never logged or printed).
    public var ratesAPIKey: RatesAPIKey?
    /// Total time allowed for one rates fetch.
    public var ratesTimeout: Duration = .seconds(10)
    /// Largest frame accepted from a peer, in bytes.
    public var maxFrameSize: Int = Limits.maxFrameSize
    /// A connection must finish TLS and `hello` within this time.
    public var handshakeTimeout: Duration = .seconds(5)
    /// Keepalive ping interval; a peer silent for three intervals is dropped.
    public var keepaliveInterval: Duration = .seconds(15)
    /// How long payments that are final and not part of the books (rejected, cancelled, expired) are kept after
    /// their last change (`[ledger] retention`); accepted, paid and settled ones are kept for good.
    public var ledgerRetention: Duration = .seconds(90 * 86_400)
    /// Pending incoming requests per peer at most; a further request is answered `limit-exceeded`.
    public var maxPendingPerPeer: Int = RequestLimiter.Limits.defaultMaxPending
    /// Incoming requests per peer per minute at most; a further request is answered `limit-exceeded`.
    public var maxRequestsPerMinute: Int = RequestLimiter.Limits.defaultMaxPerMinute
    /// Inbound connections that have not finished TLS and `hello` at most; a further one is closed at once.
    public var maxUnauthenticated: Int = TransportConfiguration.defaultMaxUnauthenticated
    /// Whether `hello` announces the `receipts` capability (settlement and signed receipts). Off only to stand in
    /// for a daemon that predates them.
    public var receipts: Bool = true
    /// Whether `hello` announces the `subscriptions` capability. Off only to stand in for a daemon that predates
    /// them.
    public var subscriptions: Bool = true
    /// Whether `hello` announces the `bills` capability (a share of a split bill keeps its link to the bill). Off
    /// only to stand in for a daemon that predates them: its shares arrive as plain requests.
    public var bills: Bool = true
    /// Fixed-length subscription periods, in seconds, instead of calendar ones (`[subscriptions] period_seconds`):
    /// for demonstrations and tests that cannot wait a week. Nil: calendar weeks, months and years.
    public var subscriptionPeriodSeconds: Int64?
    /// Whether series offers with fixed-length periods (`periodSeconds`, a payee's test setting) are taken
    /// (`[subscriptions] accept_test_periods`); off, they are declined (SECURITY.md S-STRETCH).
    public var acceptTestPeriods: Bool = false
    /// The time zone of this side's subscription due dates (an IANA name); nil: the system's, looked up when a
    /// subscription is offered (`effectiveSubscriptionTimeZone`).
    public var subscriptionTimeZone: String?
    /// Established sessions at most; a further one evicts the idlest unpaired peer's session, or is refused when
    /// every session is a paired peer's.
    public var maxSessions: Int = TransportConfiguration.defaultMaxSessions
    /// Sessions at most from one source address; nil for a quarter of `maxSessions` (at least one). A further one
    /// evicts that address's idlest session (never a paired peer's or one being paired over), or is refused.
    public var maxSessionsPerAddress: Int?

    /// A configuration; `name` must be 1 to 63 characters.
    public init(
        name: String, stateDirectory: URL, listenHost: String = "0.0.0.0", port: Int = 0,
        staticPeers: [StaticPeer] = [], discoveryEnabled: Bool = true, version: String, socketPath: String,
        socketGroupID: UInt32? = nil
    ) throws(DaemonError) {
        guard !name.isEmpty, name.unicodeScalars.count <= Limits.maxNameLength else {
            throw .invalidName(name, reason: "a name has 1 to \(Limits.maxNameLength) characters")
        }
        self.name = name
        self.stateDirectory = stateDirectory
        self.listenHost = listenHost
        self.port = port
        self.staticPeers = staticPeers
        self.discoveryEnabled = discoveryEnabled
        self.version = version
        self.socketPath = socketPath
        self.socketGroupID = socketGroupID
    }

    /// A configuration whose every configured value is still to be set, key by key (`EffectiveConfiguration`).
    init(version: String) {
        self.name = "interpay"
        self.stateDirectory = URL(fileURLWithPath: "/")
        self.listenHost = "0.0.0.0"
        self.port = 0
        self.staticPeers = []
        self.discoveryEnabled = true
        self.version = version
        self.socketPath = ControlSocketPath.systemDefault
        self.socketGroupID = nil
    }

    /// The ledger file inside the state directory.
    public var databasePath: String { stateDirectory.appending(path: "ledger.sqlite").path }
}

extension DaemonConfiguration {
    /// The time zone a subscription offered now is kept in: the configured one, else the system's.
    public var effectiveSubscriptionTimeZone: String { subscriptionTimeZone ?? TimeZone.current.identifier }
}
