import ArgumentParser
import Foundation
import InterPayControl
import InterPayControlClient
import InterPayCore
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

    @Option(
        help:
            "Configuration file (TOML). Default: /etc/interpay/interpayd.toml for root, else ~/.config/interpay/interpayd.toml."
    )
    var config: String?

    @Flag(help: "Check the configuration, print the effective settings and where each comes from, and exit.")
    var checkConfig = false

    /// The flags that set configuration keys (`ConfigKey.all`).
    @OptionGroup var settings: DaemonFlags

    @Flag(help: "Print this daemon's peer ID (creating the identity if needed) and exit.")
    var printID = false

    @Option(
        help: ArgumentHelp(
            "Restore a backup (interpay backup) into the state directory, which must hold no identity or ledger and "
                + "no running daemon, then exit. The daemon started next has the backup's peer ID, pairings and "
                + "ledger.", valueName: "file"))
    var restore: String?

    @Option(
        help: ArgumentHelp(
            "With --restore: the file whose first line is the backup's passphrase.", valueName: "passfile"))
    var passphraseFile: String?

    /// Exit status for an unusable configuration (sysexits' EX_CONFIG).
    static let configurationError: Int32 = 78

    func run() async throws {
        let host = ConfigHost.current()
        let environment = host.environment
        let effective: EffectiveConfiguration
        do {
            effective = try effectiveConfiguration(host: host)
        } catch {
            FileHandle.standardError.write(Data("interpayd: \(error.description)\n".utf8))
            throw ExitCode(Self.configurationError)
        }
        var configuration = effective.configuration
        // The file read, if any: a backup carries it.
        let location = ConfigFileLocation.resolve(
            explicit: config, isRoot: host.isRoot, environment: host.environment, home: host.home)
        if FileManager.default.fileExists(atPath: location.path) { configuration.configurationFile = location.path }
        if checkConfig {
            print("# interpayd \(Self.version): effective configuration (flags > environment > file > defaults)")
            print(effective.text)
            return
        }
        if let restore {
            try await Self.restore(restore, passphraseFile: passphraseFile, configuration: configuration)
            return
        }
        if passphraseFile != nil {
            throw ValidationError("--passphrase-file goes with --restore")
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
                    services: services,
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: logger))
            try await group.run()
        } catch let error as DaemonError {
            logger.critical("\(error.description)")
            throw ExitCode.failure
        }
    }

    /// Flags, then the environment, then the configuration file, then the defaults.
    func effectiveConfiguration(host: ConfigHost) throws(ConfigError) -> EffectiveConfiguration {
        let location = ConfigFileLocation.resolve(
            explicit: config, isRoot: host.isRoot, environment: host.environment, home: host.home)
        var file: (settings: DaemonSettings, path: String)?
        if location.required || FileManager.default.fileExists(atPath: location.path) {
            file = (try DaemonSettings(contentsOf: location.path), location.path)
        }
        return try EffectiveConfiguration.resolve(
            flags: try DaemonSettings(flags: settings), file: file, host: host, version: Self.version)
    }

    /// `--restore FILE`: restores, says what it did, and exits (1 when it cannot).
    static func restore(_ file: String, passphraseFile: String?, configuration: DaemonConfiguration) async throws {
        var passphrase: String?
        if let passphraseFile {
            guard let data = FileManager.default.contents(atPath: passphraseFile) else {
                FileHandle.standardError.write(Data("interpayd: cannot read \(passphraseFile)\n".utf8))
                throw ExitCode.failure
            }
            passphrase = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .first.map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        }
        do {
            let restored = try await Backup.restore(file: file, passphrase: passphrase, configuration: configuration)
            let taken = ISO8601Time.format(Timestamp(secondsSince1970: restored.takenAt))
            print(
                "restored \(restored.peerID) with \(restored.payments) "
                    + "\(restored.payments == 1 ? "payment" : "payments") (backup of \(taken)) into "
                    + configuration.stateDirectory.path)
            if let path = restored.configuration {
                print("its configuration file is at \(path): compare it with this host's before using it")
            }
        } catch {
            FileHandle.standardError.write(Data("interpayd: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
    }

    static func peerID(in directory: URL) throws -> String {
        do {
            return try DaemonIdentity.peerID(in: directory)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
