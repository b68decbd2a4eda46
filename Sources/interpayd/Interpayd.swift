import ArgumentParser
import Foundation
import InterPayControl
import InterPayDaemon
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

    @Option(help: "Display name shown to peers (default: this machine's host name).")
    var name: String?

    @Option(
        help:
            "Directory for the identity key and the ledger (default: $XDG_STATE_HOME/interpay, or /var/lib/interpay for root)."
    )
    var stateDir: String?

    @Option(help: "Address to listen on.")
    var listen: String = "0.0.0.0"

    @Option(help: "TCP port to listen on; 0 picks a free port, which DNS-SD advertises.")
    var port: Int = 0

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

    @Option(help: "Lowest level of log messages: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Flag(help: "Print this daemon's peer ID (creating the identity if needed) and exit.")
    var printID = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        for peer in peers {
            do { _ = try StaticPeer(parsing: peer) } catch { throw ValidationError(error.description) }
        }
        if let name, name.isEmpty || name.unicodeScalars.count > 63 {
            throw ValidationError("--name must have 1 to 63 characters")
        }
    }

    func run() async throws {
        let stateDirectory = URL(fileURLWithPath: stateDir ?? Self.defaultStateDirectory())
        let socketGroupID = try socketGroup.map(Self.groupID)
        let configuration: DaemonConfiguration
        do throws(DaemonError) {
            configuration = try DaemonConfiguration(
                name: name ?? Self.hostName(), stateDirectory: stateDirectory, listenHost: listen, port: port,
                staticPeers: try peers.map { peer throws(DaemonError) in try StaticPeer(parsing: peer) },
                discoveryEnabled: !noDiscovery, version: Self.version,
                socketPath: ControlSocketPath.resolve(
                    explicit: socket, environment: ProcessInfo.processInfo.environment),
                socketGroupID: socketGroupID)
        } catch {
            throw ValidationError(error.description)
        }
        if printID {
            print(try Self.peerID(in: stateDirectory))
            return
        }
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "interpayd")
        do {
            let services = try Daemon.services(configuration: configuration, logger: logger)
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

    /// A group ID from a name or a number.
    static func groupID(_ text: String) throws -> UInt32 {
        if let number = UInt32(text) { return number }
        guard let group = getgrnam(text) else { throw ValidationError("--socket-group: no group named '\(text)'") }
        return group.pointee.gr_gid
    }

    /// The per-user or system state directory.
    static func defaultStateDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if getuid() == 0 { return "/var/lib/interpay" }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/interpay" }
        return NSHomeDirectory() + "/.local/state/interpay"
    }

    /// This machine's host name without the domain, at most 63 characters.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "interpay" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let short = name.split(separator: ".").first.map(String.init) ?? name
        return short.isEmpty ? "interpay" : String(short.prefix(63))
    }

    static func peerID(in directory: URL) throws -> String {
        do {
            return try DaemonIdentity.peerID(in: directory)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
