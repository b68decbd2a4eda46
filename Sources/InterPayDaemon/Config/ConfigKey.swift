import Foundation
import InterPayCore
import TOMLKit

// The configuration is a table of our own (`ConfigKey.all`, in ConfigTable.swift), not apple/swift-configuration:
// that package reads JSON, YAML, the environment and arguments but no TOML, and its snapshots keep no line numbers,
// so the `file:line` errors for wrong types and unknown keys would still be written here, next to a TOML provider
// of our own; what it would then add, merging sources in order, is a loop in `EffectiveConfiguration.resolve`.

/// A configuration value, whatever its source: what a TOML file, a flag or an environment variable gives for a key.
public enum ConfigValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
    /// Text (also a name or a number).
    case string(String)
    /// A whole number (also a duration, in seconds).
    case integer(Int)
    /// A switch.
    case bool(Bool)
    /// A list of text.
    case strings([String])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: String...) { self = .strings(elements) }
}

/// The type of a key: how it is written in TOML, on the command line and in the environment.
public enum ConfigType: Sendable, Equatable {
    /// A TOML string.
    case string
    /// A TOML integer.
    case integer
    /// `true` or `false`.
    case bool
    /// A TOML array of strings; a repeatable flag; a comma-separated list in the environment.
    case strings
    /// A string such as `"15s"` or `"2m"`, or an integer number of seconds.
    case duration
    /// A name or a number (e.g. a group).
    case nameOrNumber

    /// What a value of this type must be, for messages (`'port' must be an integer`).
    public var expected: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .bool: "true or false"
        case .strings: "an array of strings"
        case .duration: "a duration such as \"15s\" or \"2m\", or a number of seconds"
        case .nameOrNumber: "a name or a number"
        }
    }

    /// The value of a TOML node, or nil when the node has another type.
    func read(_ node: any TOMLValueConvertible) -> ConfigValue? {
        switch self {
        case .string: return node.string.map(ConfigValue.string)
        case .integer: return node.int.map(ConfigValue.integer)
        case .bool: return node.bool.map(ConfigValue.bool)
        case .strings:
            guard let array = node.array else { return nil }
            var strings: [String] = []
            for element in array {
                guard let string = element.string else { return nil }
                strings.append(string)
            }
            return .strings(strings)
        case .duration:
            if let integer = node.int { return .integer(integer) }
            return node.string.flatMap { parse($0) }
        case .nameOrNumber:
            if let string = node.string { return .string(string) }
            return node.int.map { .string(String($0)) }
        }
    }

    /// The value written as text (an environment variable or a flag), or nil when the text is not of this type.
    func parse(_ text: String) -> ConfigValue? {
        switch self {
        case .string, .nameOrNumber: return .string(text)
        case .integer: return Int(text).map(ConfigValue.integer)
        case .bool: return Bool(text).map(ConfigValue.bool)
        case .strings: return .strings(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        case .duration: return DurationText.seconds(text).flatMap { Int(exactly: $0) }.map(ConfigValue.integer)
        }
    }

    /// The value as TOML writes it: `"text"`, `15`, `"15s"`, `true`, `["a", "b"]`.
    func toml(_ value: ConfigValue) -> String { written(value, asTOML: true) }

    /// The value as a message shows it, without quotes (`20s`, `nohost`), control characters escaped.
    func display(_ value: ConfigValue) -> String { written(value, asTOML: false) }

    private func written(_ value: ConfigValue, asTOML: Bool) -> String {
        func text(_ string: String) -> String { asTOML ? Self.quoted(string) : SafeText.escaped(string) }
        switch (self, value) {
        case (.duration, .integer(let seconds)):
            let duration = DurationText.text(Int64(seconds))
            return asTOML ? "\"\(duration)\"" : duration
        case (_, .string(let string)): return text(string)
        case (_, .integer(let integer)): return String(integer)
        case (_, .bool(let bool)): return String(bool)
        case (_, .strings(let strings)):
            return asTOML
                ? "[" + strings.map(text).joined(separator: ", ") + "]" : strings.map(text).joined(separator: ",")
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// The values a key accepts beyond its type.
public enum ConfigAllowed: Sendable {
    /// Any value of the type (a key's `apply` may still refuse one, e.g. a name that looks like a peer ID).
    case any
    /// A whole number (or duration in seconds) in this range; `unit` follows the bounds in messages (`" bytes"`).
    case range(ClosedRange<Int>, unit: String = "")
    /// One of these words.
    case oneOf([String])

    /// Why `value` is not allowed, or nil when it is.
    func problem(with value: ConfigValue, type: ConfigType) -> String? {
        switch (self, value) {
        case (.range(let range, let unit), .integer(let integer)):
            guard !range.contains(integer) else { return nil }
            let suffix = type == .duration ? "s" + unit : unit
            return "from \(range.lowerBound)\(suffix) to \(range.upperBound)\(suffix)"
        case (.oneOf(let words), .string(let text)):
            return words.contains(text) ? nil : "one of " + words.joined(separator: ", ")
        default:
            return nil
        }
    }
}

/// The command-line flag that sets a key.
public enum ConfigFlag: Sendable, Equatable {
    /// `--port N` sets the key to N; for a list, each repetition adds one (`--peer A --peer B`).
    case value(String)
    /// `--no-web` sets a switch to false.
    case off(String)

    /// The flag as typed, `--port`.
    public var name: String {
        switch self {
        case .value(let name), .off(let name): name
        }
    }
}

/// An environment variable that sets a key.
public enum ConfigVariable: Sendable, Equatable {
    /// The variable's value is the key's.
    case named(String)
    /// The first path of a colon-separated list (systemd's `STATE_DIRECTORY`).
    case firstPath(String)
    /// The variable whose name is another key's value (`rates.api_key` is read from the variable
    /// `rates.api_key_env` names); that key comes earlier in the table.
    case namedByKey(String)
}

/// The machine the daemon runs on, as far as computed defaults depend on it.
public struct ConfigHost: Sendable {
    /// This machine's host name without the domain, usable as a display name.
    public var hostName: String
    /// Whether the daemon runs as root (the system daemon).
    public var isRoot: Bool
    /// The user's home directory.
    public var home: String
    /// The process environment.
    public var environment: [String: String]

    /// A host from its facts.
    public init(hostName: String, isRoot: Bool, home: String, environment: [String: String]) {
        self.hostName = hostName
        self.isRoot = isRoot
        self.home = home
        self.environment = environment
    }

    /// This process's host.
    public static func current() -> ConfigHost {
        ConfigHost(
            hostName: currentHostName(), isRoot: getuid() == 0, home: NSHomeDirectory(),
            environment: ProcessInfo.processInfo.environment)
    }

    /// This machine's host name without the domain, at most 63 characters; in small letters when, in capitals, it
    /// would read as a peer ID prefix (a Windows-style `DESKTOP7`), which no display name may (`DisplayName`).
    static func currentHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "interpay" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let short = name.split(separator: ".").first.map(String.init) ?? name
        let candidate = short.isEmpty ? "interpay" : String(short.prefix(Limits.maxNameLength))
        return DisplayName.problem(with: candidate) == nil ? candidate : candidate.lowercased()
    }
}

/// A key's value when no source sets it.
public enum ConfigDefault: Sendable {
    /// This value, written as it is in the example file.
    case value(ConfigValue)
    /// A value computed from the host, which the text says how (`--check-config` shows it); the example file shows
    /// `example`.
    case computed(String, example: ConfigValue, @Sendable (ConfigHost) -> ConfigValue)
    /// No value: the daemon does without, which the text says what means (`--check-config` shows it); the example
    /// file shows `example`.
    case unset(String, example: ConfigValue)
}

/// Why a key's `apply` refuses a value of the right type and range.
public struct ConfigProblem: Error {
    /// Why, e.g. "no such group".
    public var reason: String
    /// The part of the value at fault (one peer of a list), when not the whole value.
    public var value: String?

    /// A problem with the whole value or with `value`.
    public init(_ reason: String, value: String? = nil) {
        self.reason = reason
        self.value = value
    }
}

/// One configuration key: everything about it but the prose of the example file and the README.
///
/// `ConfigKey.all` is the table. The TOML reader, the flags, the environment, the defaults, the range checks, the
/// `--check-config` output and the tests of the example file all follow it.
public struct ConfigKey: Sendable {
    /// The key as written in the file, `limits.max_sessions` (a table and a key, or a top-level key).
    public let name: String
    /// Its type.
    public let type: ConfigType
    /// The values accepted beyond the type.
    public let allowed: ConfigAllowed
    /// The command-line flag, if any.
    public let flag: ConfigFlag?
    /// The environment variables that set it, the first one set winning.
    public let environment: [ConfigVariable]
    /// The value when nothing sets it.
    public let defaultValue: ConfigDefault
    /// Whether the value is secret: shown as `****`, and never read from the file.
    public let secret: Bool
    /// Stores the checked value in the configuration, or refuses it.
    let apply: @Sendable (inout DaemonConfiguration, ConfigValue) throws(ConfigProblem) -> Void

    /// Whether the configuration file may set the key (a secret may not).
    public var inFile: Bool { !secret }

    /// The value the example file shows: the default, or the example of a computed or unset default.
    public var exampleValue: ConfigValue {
        switch defaultValue {
        case .value(let value), .computed(_, let value, _), .unset(_, let value): value
        }
    }

    /// The key's value when no source sets it, on `host`.
    func defaultValue(on host: ConfigHost) -> ConfigValue? {
        switch defaultValue {
        case .value(let value): value
        case .computed(_, _, let compute): compute(host)
        case .unset: nil
        }
    }

    /// The key with `name` in the table.
    public static func named(_ name: String) -> ConfigKey? { all.first { $0.name == name } }

    /// The key that `flag` (`--port`) sets.
    public static func flagged(_ flag: String) -> ConfigKey? { all.first { $0.flag?.name == flag } }

    init(
        _ name: String, _ type: ConfigType, allowed: ConfigAllowed, flag: ConfigFlag?, environment: [ConfigVariable],
        default defaultValue: ConfigDefault, secret: Bool,
        apply: @escaping @Sendable (inout DaemonConfiguration, ConfigValue) throws(ConfigProblem) -> Void
    ) {
        self.name = name
        self.type = type
        self.allowed = allowed
        self.flag = flag
        self.environment = environment
        self.defaultValue = defaultValue
        self.secret = secret
        self.apply = apply
    }
}

// Typed constructors of table rows: each passes `apply` the value as the type it is stored as.
extension ConfigKey {
    static func string(
        _ name: String, _ allowed: ConfigAllowed = .any, flag: ConfigFlag? = nil, environment: [ConfigVariable] = [],
        default defaultValue: ConfigDefault, secret: Bool = false, type: ConfigType = .string,
        apply: @escaping @Sendable (inout DaemonConfiguration, String) throws(ConfigProblem) -> Void
    ) -> ConfigKey {
        ConfigKey(
            name, type, allowed: allowed, flag: flag, environment: environment, default: defaultValue, secret: secret
        ) { configuration, value throws(ConfigProblem) in
            if case .string(let text) = value { try apply(&configuration, text) }
        }
    }

    static func integer(
        _ name: String, _ range: ClosedRange<Int>, unit: String = "", flag: ConfigFlag? = nil,
        environment: [ConfigVariable] = [], default defaultValue: ConfigDefault,
        apply: @escaping @Sendable (inout DaemonConfiguration, Int) -> Void
    ) -> ConfigKey {
        ConfigKey(
            name, .integer, allowed: .range(range, unit: unit), flag: flag, environment: environment,
            default: defaultValue, secret: false
        ) { configuration, value in
            if case .integer(let integer) = value { apply(&configuration, integer) }
        }
    }

    static func duration(
        _ name: String, _ range: ClosedRange<Int>, flag: ConfigFlag? = nil, environment: [ConfigVariable] = [],
        default defaultValue: ConfigDefault, apply: @escaping @Sendable (inout DaemonConfiguration, Duration) -> Void
    ) -> ConfigKey {
        ConfigKey(
            name, .duration, allowed: .range(range), flag: flag, environment: environment, default: defaultValue,
            secret: false
        ) { configuration, value in
            if case .integer(let seconds) = value { apply(&configuration, .seconds(seconds)) }
        }
    }

    static func bool(
        _ name: String, flag: ConfigFlag? = nil, environment: [ConfigVariable] = [],
        default defaultValue: ConfigDefault,
        apply: @escaping @Sendable (inout DaemonConfiguration, Bool) -> Void
    ) -> ConfigKey {
        ConfigKey(
            name, .bool, allowed: .any, flag: flag, environment: environment, default: defaultValue, secret: false
        ) { configuration, value in
            if case .bool(let bool) = value { apply(&configuration, bool) }
        }
    }

    static func strings(
        _ name: String, flag: ConfigFlag? = nil, environment: [ConfigVariable] = [],
        default defaultValue: ConfigDefault,
        apply: @escaping @Sendable (inout DaemonConfiguration, [String]) throws(ConfigProblem) -> Void
    ) -> ConfigKey {
        ConfigKey(
            name, .strings, allowed: .any, flag: flag, environment: environment, default: defaultValue, secret: false
        ) { configuration, value throws(ConfigProblem) in
            if case .strings(let strings) = value { try apply(&configuration, strings) }
        }
    }
}
