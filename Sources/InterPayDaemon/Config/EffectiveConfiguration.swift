import Foundation
import InterPayCore
import InterPayRates
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
    /// Every setting that has a value, in the order of the table of keys (and of the example file); a secret's
    /// value is `"****"`.
    public let entries: [Entry]

    /// The lowest level logged.
    public var logLevel: Logger.Level { configuration.logLevel }

    /// Merges `flags`, the environment of `host`, the file's settings and the defaults of the table of keys
    /// (`ConfigKey.all`) key by key, and checks every value against its key's type and range.
    public static func resolve(
        flags: DaemonSettings, file: (settings: DaemonSettings, path: String)?, host: ConfigHost, version: String
    ) throws(ConfigError) -> EffectiveConfiguration {
        var configuration = DaemonConfiguration(version: version)
        var resolved: [String: ConfigValue] = [:]
        var entries: [Entry] = []
        for key in ConfigKey.all {
            guard
                let (value, source) = try pick(
                    key, flags: flags, host: host, resolved: resolved, file: file)
            else { continue }
            let shown = key.secret ? RatesAPIKey.mask : key.type.display(value)
            if let reason = key.allowed.problem(with: value, type: key.type) {
                throw .invalidValue(key: key.name, value: shown, reason: reason, source: source)
            }
            do {
                try key.apply(&configuration, value)
            } catch {
                throw .invalidValue(key: key.name, value: error.value ?? shown, reason: error.reason, source: source)
            }
            resolved[key.name] = value
            let text = key.secret ? "\"\(RatesAPIKey.mask)\"" : key.type.toml(value)
            entries.append(Entry(key: key.name, value: text, source: source))
        }
        // The one check across keys: the URL template and the key it may need.
        do {
            try ExchangeRateAPIProvider.validate(
                urlTemplate: configuration.ratesURLTemplate, apiKey: configuration.ratesAPIKey)
        } catch {
            let url = configuration.ratesURLTemplate
            throw .invalidValue(
                key: "rates.url", value: configuration.ratesAPIKey?.redact(url) ?? url, reason: error.description,
                source: entries.first { $0.key == "rates.url" }?.source ?? .defaultValue)
        }
        return EffectiveConfiguration(configuration: configuration, entries: entries)
    }

    /// The value of `key` from the first source that sets it (flags, environment, file, default), or nil.
    private static func pick(
        _ key: ConfigKey, flags: DaemonSettings, host: ConfigHost, resolved: [String: ConfigValue],
        file: (settings: DaemonSettings, path: String)?
    ) throws(ConfigError) -> (ConfigValue, ConfigSource)? {
        if let value = flags[key.name] { return (value, .flag(key.flag?.name ?? key.name)) }
        for variable in key.environment {
            let name: String
            var text: String?
            switch variable {
            case .named(let variable):
                name = variable
                text = host.environment[variable]
            case .firstPath(let variable):
                // systemd lists one directory per StateDirectory= entry, separated by colons.
                name = variable
                text = host.environment[variable]?.split(separator: ":").first.map(String.init)
            case .namedByKey(let other):
                guard case .string(let variable)? = resolved[other] else { continue }
                name = variable
                text = host.environment[variable]
            }
            guard let text, !text.isEmpty else { continue }
            guard let value = key.type.parse(text) else {
                throw .invalidValue(
                    key: key.name, value: key.secret ? RatesAPIKey.mask : SafeText.escaped(text),
                    reason: "must be \(key.type.expected)", source: .environment(name))
            }
            return (value, .environment(name))
        }
        if let file, let value = file.settings[key.name] { return (value, .file(path: file.path)) }
        return key.defaultValue(on: host).map { ($0, .defaultValue) }
    }

    /// The effective configuration as TOML in the order of the table of keys: each value commented with its source
    /// (and what a computed default is), each key without a value as a comment saying what that means.
    public var text: String {
        var lines: [String] = []
        var table: String?
        for key in ConfigKey.all {
            let entry = entries.first { $0.key == key.name }
            let line: String
            switch (entry, key.defaultValue) {
            case (let entry?, .computed(let summary, _, _)) where entry.source == .defaultValue:
                line = Self.line(entry, note: "default: \(summary)")
            case (let entry?, _):
                line = Self.line(entry, note: entry.source.description)
            case (nil, .unset(let summary, _)):
                line = "# \(key.name.split(separator: ".").last ?? "") is not set: \(summary)"
            case (nil, _):
                continue
            }
            let parts = key.name.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2, parts[0] != table {
                lines.append("\n[\(parts[0])]")
                table = parts[0]
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `key = value` padded to a column, then `# note`.
    private static func line(_ entry: Entry, note: String) -> String {
        let key = entry.key.split(separator: ".", maxSplits: 1).last ?? ""
        let assignment = "\(key) = \(entry.value)"
        let padding = String(repeating: " ", count: max(1, 40 - assignment.count))
        return "\(assignment)\(padding)# \(note)"
    }

    /// A group's ID from its name or number.
    static func groupIDNamed(_ text: String) -> UInt32? {
        if let number = UInt32(text) { return number }
        guard let group = getgrnam(text) else { return nil }
        return group.pointee.gr_gid
    }
}
