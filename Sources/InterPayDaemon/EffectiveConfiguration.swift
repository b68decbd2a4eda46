import Foundation
import InterPayCore
import InterPayEngine
import InterPayRates
import InterPayTransport
import InterPayWeb
public import Logging

/// The configuration `interpayd` runs with, merged from its sources, and where each value came from.
///
/// For every key: a command-line flag wins over the environment, which wins over the configuration file, which wins
/// over the built-in default. `interpayd --check-config` prints `text`.
public struct EffectiveConfiguration: Sendable {
    /// One effective setting.
    public struct Entry: Sendable, Equatable {
        /// The key as written in the configuration file (`control.socket`).
        public let key: String
        /// The value as TOML would write it.
        public let value: String
        /// Where it came from.
        public let source: ConfigSource
    }

    /// The daemon's configuration.
    public let configuration: DaemonConfiguration
    /// The lowest level logged.
    public let logLevel: Logger.Level
    /// Every setting in the order of the example file.
    public let entries: [Entry]

    /// The flag that sets each key, for sources and messages.
    public static let flags: [String: String] = [
        "name": "--name", "listen": "--listen", "port": "--port", "state_dir": "--state-dir",
        "log_level": "--log-level", "accept_from": "--accept-from", "control.socket": "--socket",
        "control.group": "--socket-group", "web.enabled": "--no-web", "receipts.enabled": "--no-receipts",
        "web.listen": "--web",
        "discovery.enabled": "--no-discovery", "discovery.peers": "--peer", "rates.currency": "--currency",
        "rates.url": "--rates-url",
    ]

    /// The environment variables that set keys (the first one set wins).
    public static let environmentVariables: [String: [String]] = [
        "name": ["INTERPAY_NAME"], "state_dir": ["INTERPAY_STATE_DIR", "STATE_DIRECTORY"],
        "log_level": ["INTERPAY_LOG_LEVEL"], "accept_from": ["INTERPAY_ACCEPT_FROM"],
        "control.socket": ["INTERPAY_SOCKET"],
        "rates.currency": ["INTERPAY_CURRENCY"], "rates.url": ["INTERPAY_RATES_URL"],
    ]

    /// Merges `flags`, the string settings of `environment`, the file's settings and `defaults` (which must set
    /// name, listen, port, state directory, log level, socket, web, web listen address, discovery, peers, rates URL,
    /// rates key variable and rates timeout), and checks every value. The rates API key is read from the variable `rates.api_key_env`
    /// names and shown only masked.
    public static func resolve(
        flags: DaemonSettings, environment: [String: String], file: (settings: DaemonSettings, path: String)?,
        defaults: DaemonSettings, version: String
    ) throws(ConfigError) -> EffectiveConfiguration {
        var environmentSettings = DaemonSettings()
        var environmentSources: [String: String] = [:]
        func fromEnvironment(_ key: String) -> String? {
            for variable in environmentVariables[key] ?? [] {
                guard var value = environment[variable], !value.isEmpty else { continue }
                if variable == "STATE_DIRECTORY" {
                    // systemd lists one directory per StateDirectory= entry, separated by colons.
                    guard let first = value.split(separator: ":").first else { continue }
                    value = String(first)
                }
                environmentSources[key] = variable
                return value
            }
            return nil
        }
        environmentSettings.name = fromEnvironment("name")
        environmentSettings.stateDirectory = fromEnvironment("state_dir")
        environmentSettings.logLevel = fromEnvironment("log_level")
        environmentSettings.acceptFrom = fromEnvironment("accept_from")
        environmentSettings.socket = fromEnvironment("control.socket")
        environmentSettings.currency = fromEnvironment("rates.currency")
        environmentSettings.ratesURL = fromEnvironment("rates.url")

        var merger = Merger(
            layers: [
                (flags, { .flag(Self.flags[$0] ?? $0) }),
                (environmentSettings, { .environment(environmentSources[$0] ?? $0) }),
                (file?.settings ?? DaemonSettings(), { _ in .file(path: file?.path ?? "") }),
                (defaults, { _ in .defaultValue }),
            ])

        let name = try merger.required("name", \.name, quoted: true)
        if let problem = DisplayName.problem(with: name.value) {
            throw .invalidValue(key: "name", value: SafeText.escaped(name.value), reason: problem, source: name.source)
        }
        let listen = try merger.required("listen", \.listen, quoted: true)
        let port = try merger.required("port", \.port)
        guard (0...65_535).contains(port.value) else {
            throw .invalidValue(
                key: "port", value: "\(port.value)", reason: "a port is 0 to 65535", source: port.source)
        }
        let stateDirectory = try merger.required("state_dir", \.stateDirectory, quoted: true)
        let logLevelText = try merger.required("log_level", \.logLevel, quoted: true)
        guard let logLevel = Logger.Level(rawValue: logLevelText.value) else {
            throw .invalidValue(
                key: "log_level", value: logLevelText.value,
                reason: "one of trace, debug, info, notice, warning, error, critical", source: logLevelText.source)
        }
        var acceptFrom = AcceptPolicy.any
        if let acceptFromText = merger.optional("accept_from", \.acceptFrom, quoted: true) {
            guard let policy = AcceptPolicy(rawValue: acceptFromText.value) else {
                throw .invalidValue(
                    key: "accept_from", value: acceptFromText.value, reason: "\"any\" or \"paired\"",
                    source: acceptFromText.source)
            }
            acceptFrom = policy
        } else {
            merger.record("accept_from", value: "\"\(acceptFrom.rawValue)\"", source: .defaultValue)
        }
        let socket = try merger.required("control.socket", \.socket, quoted: true)
        let group = merger.optional("control.group", \.socketGroup, quoted: true)
        var groupID: UInt32?
        if let group {
            guard let gid = groupIDNamed(group.value) else {
                throw .invalidValue(
                    key: "control.group", value: group.value, reason: "no such group", source: group.source)
            }
            groupID = gid
        }
        // Not required of `defaults`: without a value anywhere the web app is on at 127.0.0.1:7780.
        let webEnabled =
            merger.optional("web.enabled", \.web)
            ?? merger.recorded("web.enabled", true, source: .defaultValue)
        // Not required of `defaults` either: receipts are on unless turned off.
        let receipts =
            merger.optional("receipts.enabled", \.receipts)
            ?? merger.recorded("receipts.enabled", true, source: .defaultValue)
        let webListenText =
            merger.optional("web.listen", \.webListen, quoted: true)
            ?? merger.recorded(
                "web.listen", WebListenAddress.default.description, quoted: true, source: .defaultValue)
        var webListen: WebListenAddress?
        do {
            webListen = try WebListenAddress(parsing: webListenText.value)
        } catch {
            throw .invalidValue(
                key: "web.listen", value: webListenText.value, reason: error.description, source: webListenText.source)
        }
        let discovery = try merger.required("discovery.enabled", \.discovery)
        let peerTexts = try merger.required("discovery.peers", \.peers)
        var peers: [StaticPeer] = []
        for text in peerTexts.value {
            do {
                peers.append(try StaticPeer(parsing: text))
            } catch {
                throw .invalidValue(
                    key: "discovery.peers", value: text, reason: error.description, source: peerTexts.source)
            }
        }
        let currency = merger.optional("rates.currency", \.currency, quoted: true)
        var preferredCurrency: CurrencyCode?
        if let currency {
            do {
                preferredCurrency = try CurrencyCode(userInput: currency.value)
            } catch {
                throw .invalidValue(
                    key: "rates.currency", value: currency.value, reason: error.description, source: currency.source)
            }
        }
        let ratesURL = try merger.required("rates.url", \.ratesURL, quoted: true)
        let keyVariable = try merger.required("rates.api_key_env", \.ratesAPIKeyVariable, quoted: true)
        var apiKey: RatesAPIKey?
        if let secret = environment[keyVariable.value], !secret.isEmpty {
            do {
                apiKey = try RatesAPIKey(secret)
            } catch {
                throw .invalidValue(
                    key: "rates.api_key_env", value: "$\(keyVariable.value)", reason: error.description,
                    source: .environment(keyVariable.value))
            }
            merger.record("rates.api_key", value: "\"\(RatesAPIKey.mask)\"", source: .environment(keyVariable.value))
        }
        do {
            try ExchangeRateAPIProvider.validate(urlTemplate: ratesURL.value, apiKey: apiKey)
        } catch {
            throw .invalidValue(
                key: "rates.url", value: apiKey?.redact(ratesURL.value) ?? ratesURL.value, reason: error.description,
                source: ratesURL.source)
        }
        let ratesTimeout = try merger.required("rates.timeout", \.ratesTimeout, unit: "s")
        guard (1...300).contains(ratesTimeout.value) else {
            throw .invalidValue(
                key: "rates.timeout", value: "\(ratesTimeout.value)s", reason: "from 1s to 300s",
                source: ratesTimeout.source)
        }
        let frame = merger.optional("limits.max_frame_bytes", \.maxFrameBytes)
        if let frame, !(4_096...Limits.maxFrameSize).contains(frame.value) {
            throw .invalidValue(
                key: "limits.max_frame_bytes", value: "\(frame.value)",
                reason: "from 4096 to \(Limits.maxFrameSize) bytes", source: frame.source)
        }
        let handshake = merger.optional("limits.handshake_timeout", \.handshakeTimeout, unit: "s")
        if let handshake, !(1...60).contains(handshake.value) {
            throw .invalidValue(
                key: "limits.handshake_timeout", value: "\(handshake.value)s", reason: "from 1s to 60s",
                source: handshake.source)
        }
        let keepalive = merger.optional("limits.keepalive_interval", \.keepaliveInterval, unit: "s")
        if let keepalive, !(5...60).contains(keepalive.value) {
            throw .invalidValue(
                key: "limits.keepalive_interval", value: "\(keepalive.value)s", reason: "from 5s to 60s",
                source: keepalive.source)
        }
        let pendingLimit = merger.optional("limits.max_pending_per_peer", \.maxPendingPerPeer)
        if let pendingLimit, !(1...100_000).contains(pendingLimit.value) {
            throw .invalidValue(
                key: "limits.max_pending_per_peer", value: "\(pendingLimit.value)", reason: "from 1 to 100000",
                source: pendingLimit.source)
        }
        let rateLimit = merger.optional("limits.max_requests_per_minute", \.maxRequestsPerMinute)
        if let rateLimit, !(1...1_000_000).contains(rateLimit.value) {
            throw .invalidValue(
                key: "limits.max_requests_per_minute", value: "\(rateLimit.value)", reason: "from 1 to 1000000",
                source: rateLimit.source)
        }
        let unauthenticated = merger.optional("limits.max_unauthenticated", \.maxUnauthenticated)
        if let unauthenticated, !(1...100_000).contains(unauthenticated.value) {
            throw .invalidValue(
                key: "limits.max_unauthenticated", value: "\(unauthenticated.value)", reason: "from 1 to 100000",
                source: unauthenticated.source)
        }
        let sessionLimit = merger.optional("limits.max_sessions", \.maxSessions)
        if let sessionLimit, !(1...100_000).contains(sessionLimit.value) {
            throw .invalidValue(
                key: "limits.max_sessions", value: "\(sessionLimit.value)", reason: "from 1 to 100000",
                source: sessionLimit.source)
        }
        if sessionLimit == nil {
            merger.record(
                "limits.max_sessions", value: "\(TransportConfiguration.defaultMaxSessions)", source: .defaultValue)
        }
        let periodSeconds = merger.optional("subscriptions.period_seconds", \.subscriptionPeriodSeconds)
        if let periodSeconds, !(1...Limits.maxRequestLifetime).contains(periodSeconds.value) {
            throw .invalidValue(
                key: "subscriptions.period_seconds", value: "\(periodSeconds.value)",
                reason: "from 1 to \(Limits.maxRequestLifetime)", source: periodSeconds.source)
        }
        let timeZone = merger.optional("subscriptions.time_zone", \.subscriptionTimeZone, quoted: true)
        if let timeZone, TimeZone(identifier: timeZone.value) == nil {
            throw .invalidValue(
                key: "subscriptions.time_zone", value: timeZone.value,
                reason: "not a time zone this system knows (an IANA name such as Europe/Berlin)",
                source: timeZone.source)
        }

        var configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration(
                name: name.value, stateDirectory: URL(fileURLWithPath: stateDirectory.value), listenHost: listen.value,
                port: port.value, staticPeers: peers, discoveryEnabled: discovery.value, version: version,
                socketPath: socket.value, socketGroupID: groupID)
        } catch {
            throw .invalidValue(key: "name", value: name.value, reason: error.description, source: name.source)
        }
        configuration.acceptFrom = acceptFrom
        configuration.webListen = webEnabled.value ? webListen : nil
        configuration.receipts = receipts.value
        configuration.preferredCurrency = preferredCurrency
        configuration.ratesURLTemplate = ratesURL.value
        configuration.ratesAPIKey = apiKey
        configuration.ratesTimeout = .seconds(ratesTimeout.value)
        if let frame { configuration.maxFrameSize = frame.value }
        if let handshake { configuration.handshakeTimeout = .seconds(handshake.value) }
        if let keepalive { configuration.keepaliveInterval = .seconds(keepalive.value) }
        if let pendingLimit { configuration.maxPendingPerPeer = pendingLimit.value }
        if let rateLimit { configuration.maxRequestsPerMinute = rateLimit.value }
        if let unauthenticated { configuration.maxUnauthenticated = unauthenticated.value }
        if let sessionLimit { configuration.maxSessions = sessionLimit.value }
        configuration.subscriptionPeriodSeconds = periodSeconds?.value
        if let timeZone { configuration.subscriptionTimeZone = timeZone.value }
        return EffectiveConfiguration(configuration: configuration, logLevel: logLevel, entries: merger.entries)
    }

    /// The effective configuration as TOML, each line commented with its source.
    public var text: String {
        var lines: [String] = []
        var table: String?
        for entry in entries {
            let parts = entry.key.split(separator: ".", maxSplits: 1).map(String.init)
            let (section, key) = parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0])
            if section != table, let section {
                lines.append("\n[\(section)]")
                table = section
            }
            let assignment = "\(key) = \(entry.value)"
            let padding = String(repeating: " ", count: max(1, 40 - assignment.count))
            lines.append("\(assignment)\(padding)# \(entry.source)")
        }
        return lines.joined(separator: "\n")
    }

    /// A group's ID from its name or number.
    static func groupIDNamed(_ text: String) -> UInt32? {
        if let number = UInt32(text) { return number }
        guard let group = getgrnam(text) else { return nil }
        return group.pointee.gr_gid
    }
}

/// Picks each key from the first layer that sets it, and records the entry.
private struct Merger {
    let layers: [(settings: DaemonSettings, source: (String) -> ConfigSource)]
    private(set) var entries: [EffectiveConfiguration.Entry] = []

    init(layers: [(DaemonSettings, (String) -> ConfigSource)]) {
        self.layers = layers.map { (settings: $0.0, source: $0.1) }
    }

    /// The first layer's value for `key`; `unit` is appended to the printed value, which is then quoted (`"15s"`).
    mutating func optional<T>(
        _ key: String, _ path: KeyPath<DaemonSettings, T?>, quoted: Bool = false, unit: String? = nil
    ) -> (value: T, source: ConfigSource)? {
        for layer in layers {
            guard let value = layer.settings[keyPath: path] else { continue }
            let source = layer.source(key)
            let text = unit.map { "\"\(value)\($0)\"" } ?? Self.toml(value, quoted: quoted)
            entries.append(.init(key: key, value: text, source: source))
            return (value, source)
        }
        return nil
    }

    /// Records an entry that no layer holds directly (e.g. the masked API key).
    mutating func record(_ key: String, value: String, source: ConfigSource) {
        entries.append(.init(key: key, value: value, source: source))
    }

    /// Records `value` as the entry for `key` and returns it with its source.
    mutating func recorded<T>(
        _ key: String, _ value: T, quoted: Bool = false, source: ConfigSource
    ) -> (value: T, source: ConfigSource) {
        entries.append(.init(key: key, value: Self.toml(value, quoted: quoted), source: source))
        return (value, source)
    }

    mutating func required<T>(
        _ key: String, _ path: KeyPath<DaemonSettings, T?>, quoted: Bool = false, unit: String? = nil
    ) throws(ConfigError) -> (value: T, source: ConfigSource) {
        guard let found = optional(key, path, quoted: quoted, unit: unit) else {
            throw .invalidValue(key: key, value: "nothing", reason: "no value and no default", source: .defaultValue)
        }
        return found
    }

    private static func toml<T>(_ value: T, quoted: Bool) -> String {
        switch value {
        case let strings as [String]: "[" + strings.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        case let string as String: quoted ? "\"\(string)\"" : string
        default: "\(value)"
        }
    }
}
