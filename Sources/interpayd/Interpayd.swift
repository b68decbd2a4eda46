import ArgumentParser
import Foundation
import InterPayControl
import InterPayCore
import InterPayDaemon
import InterPayEngine
import InterPayRates
import InterPayWeb
import Logging
import ServiceLifecycle

/// `interpayd`: the InterPay daemon.
@main
struct Interpayd: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "interpayd",
        abstract: "The InterPay daemon: finds peers on the LAN and exchanges payment requests with them.",
        discussion: """
            interpayd advertises itself with DNS-SD (_interpay._tcp, through avahi-daemon), finds the other \
            daemons of the LAN, and keeps one mutually authenticated TLS 1.3 session with each. Its identity (a \
            key whose hash is the peer ID) lives in the state directory and survives restarts.

            Without DNS-SD, give peers by address with --peer and turn discovery off with --no-discovery.
            """,
        version: version)

    @Option(
        help:
            "Configuration file (TOML). Default: /etc/interpay/interpayd.toml for root, else ~/.config/interpay/interpayd.toml."
    )
    var config: String?

    @Flag(help: "Check the configuration, print the effective settings and where each comes from, and exit.")
    var checkConfig = false

    @Option(help: "Display name shown to peers (default: this machine's host name).")
    var name: String?

    @Option(
        help:
            "Directory for the identity key and the ledger (default: $XDG_STATE_HOME/interpay, or /var/lib/interpay for root)."
    )
    var stateDir: String?

    @Option(help: "Address to listen on (default: 0.0.0.0).")
    var listen: String?

    @Option(help: "TCP port to listen on; 0 (the default) picks a free port, which DNS-SD advertises.")
    var port: Int?

    @Option(name: .customLong("peer"), help: "A peer to connect to without DNS-SD, as HOST:PORT (repeatable).")
    var peers: [String] = []

    @Flag(help: "Neither advertise nor browse with DNS-SD (use --peer).")
    var noDiscovery = false

    @Option(
        help: ArgumentHelp(
            "Control socket for the interpay CLI.",
            discussion:
                "Default: $INTERPAY_SOCKET, else $XDG_RUNTIME_DIR/interpay/interpayd.sock, else /run/interpay/interpayd.sock."
        ))
    var socket: String?

    @Option(help: "A group (name or number) whose members may use the control socket too (socket mode 0660).")
    var socketGroup: String?

    @Option(
        help: ArgumentHelp(
            "Serve the web app on this loopback ADDR:PORT (default 127.0.0.1:7780; port 0 picks a free one).",
            discussion: "Only 127.0.0.0/8, [::1] and localhost are accepted: the app is never served to the network."
        ))
    var web: String?

    @Flag(help: "Do not serve the web app.")
    var noWeb = false

    @Flag(
        help: ArgumentHelp(
            "Do not settle with signed receipts (receipts.enabled = false).",
            discussion:
                "The daemon then does not announce the receipts capability and behaves as one that predates receipts."
        ))
    var noReceipts = false

    @Option(help: "Lowest level of log messages: trace, debug, info (default), notice, warning, error, critical.")
    var logLevel: String?

    @Option(
        help: ArgumentHelp(
            "Whose payment requests to take: any (default; unpaired peers are flagged unverified) or paired.",
            discussion:
                "With 'paired', requests from peers not paired with 'interpay pair' are refused. Also $INTERPAY_ACCEPT_FROM."
        ))
    var acceptFrom: String?

    @Option(help: "Show amounts also in this currency (ISO 4217, e.g. EUR); also $INTERPAY_CURRENCY.")
    var currency: String?

    @Option(
        help: ArgumentHelp(
            "Exchange rates: an ExchangeRate-API v6 URL template with {base} (and {key}).",
            discussion:
                "Default: the keyless open endpoint, https://open.er-api.com/v6/latest/{base}. The API key, if the template needs one, comes only from the environment ($INTERPAY_RATES_API_KEY, or the variable rates.api_key_env names)."
        ))
    var ratesURL: String?

    @Flag(help: "Print this daemon's peer ID (creating the identity if needed) and exit.")
    var printID = false

    func validate() throws {
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        for peer in peers {
            do { _ = try StaticPeer(parsing: peer) } catch { throw ValidationError(error.description) }
        }
        if let name, name.isEmpty || name.unicodeScalars.count > 63 {
            throw ValidationError("--name must have 1 to 63 characters")
        }
        if let acceptFrom, AcceptPolicy(rawValue: acceptFrom) == nil {
            throw ValidationError("--accept-from must be any or paired")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    /// Exit status for an unusable configuration (sysexits' EX_CONFIG).
    static let configurationError: Int32 = 78

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let effective: EffectiveConfiguration
        do {
            effective = try effectiveConfiguration(environment: environment)
        } catch {
            FileHandle.standardError.write(Data("interpayd: \(error.description)\n".utf8))
            throw ExitCode(Self.configurationError)
        }
        let configuration = effective.configuration
        if checkConfig {
            print("# interpayd \(Self.version): effective configuration (flags > environment > file > defaults)")
            print(effective.text)
            return
        }
        if printID {
            print(try Self.peerID(in: configuration.stateDirectory))
            return
        }
        let level = effective.logLevel
        let style = DaemonLogHandler.style(environment: environment)
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, level: level, style: style) }
        let logger = Logger(label: "interpayd")
        switch FileDescriptorLimit.raiseSoftToHard() {
        case .success(let limit):
            logger.debug("open file limit", metadata: ["limit": "\(limit)"])
        case .failure(let error):
            logger.warning("cannot raise the open file limit; keeping the current one", metadata: ["error": "\(error)"])
        }
        let needed = FileDescriptorLimit.needed(
            maxSessions: configuration.maxSessions, maxUnauthenticated: configuration.maxUnauthenticated)
        if let limit = FileDescriptorLimit.current(), limit < needed {
            logger.warning(
                "the open file limit is below what limits.max_sessions and limits.max_unauthenticated may need; lower them or raise LimitNOFILE",
                metadata: ["limit": "\(limit)", "needed": "\(needed)"])
        }
        do {
            let services = try Daemon.services(configuration: configuration, environment: environment, logger: logger)
            let group = ServiceGroup(
                configuration: .init(
                    services: services.map { .init(service: $0) },
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: logger))
            try await group.run()
        } catch let error as DaemonError {
            logger.critical("\(error.description)")
            throw ExitCode.failure
        }
    }

    /// Flags, then the environment, then the configuration file, then the defaults.
    func effectiveConfiguration(environment: [String: String]) throws(ConfigError) -> EffectiveConfiguration {
        var flags = DaemonSettings()
        flags.name = name
        flags.listen = listen
        flags.port = port
        flags.stateDirectory = stateDir
        flags.logLevel = logLevel
        flags.socket = socket
        flags.socketGroup = socketGroup
        flags.web = noWeb ? false : nil
        flags.receipts = noReceipts ? false : nil
        flags.webListen = web
        flags.discovery = noDiscovery ? false : nil
        flags.peers = peers.isEmpty ? nil : peers
        flags.currency = currency
        flags.acceptFrom = acceptFrom
        flags.ratesURL = ratesURL

        var defaults = DaemonSettings()
        defaults.name = Self.hostName()
        defaults.listen = "0.0.0.0"
        defaults.port = 0
        defaults.stateDirectory = Self.defaultStateDirectory()
        defaults.logLevel = "info"
        var withoutOverride = environment
        withoutOverride[ControlSocketPath.environmentVariable] = nil
        defaults.socket = ControlSocketPath.resolve(explicit: nil, environment: withoutOverride)
        defaults.web = true
        defaults.webListen = WebListenAddress.default.description
        defaults.discovery = true
        defaults.peers = []
        defaults.ratesURL = ExchangeRateAPIProvider.defaultURLTemplate
        defaults.ratesAPIKeyVariable = RatesAPIKey.environmentVariable
        defaults.ratesTimeout = 10

        let location = ConfigFileLocation.resolve(
            explicit: config, isRoot: getuid() == 0, environment: environment, home: NSHomeDirectory())
        var file: (settings: DaemonSettings, path: String)?
        if location.required || FileManager.default.fileExists(atPath: location.path) {
            file = (try DaemonSettings(contentsOf: location.path), location.path)
        }
        return try EffectiveConfiguration.resolve(
            flags: flags, environment: environment, file: file, defaults: defaults, version: Self.version)
    }

    /// The per-user or system state directory.
    static func defaultStateDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if getuid() == 0 { return "/var/lib/interpay" }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/interpay" }
        return NSHomeDirectory() + "/.local/state/interpay"
    }

    /// This machine's host name without the domain, at most 63 characters; in small letters when, in capitals, it
    /// would read as a peer ID prefix (a Windows-style `DESKTOP7`), which no display name may (`DisplayName`).
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "interpay" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let short = name.split(separator: ".").first.map(String.init) ?? name
        let candidate = short.isEmpty ? "interpay" : String(short.prefix(63))
        return DisplayName.problem(with: candidate) == nil ? candidate : candidate.lowercased()
    }

    static func peerID(in directory: URL) throws -> String {
        do {
            return try DaemonIdentity.peerID(in: directory)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
