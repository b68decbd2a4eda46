/// Why the daemon's configuration cannot be used; every case names the file, key or flag concerned.
public enum ConfigError: Error, Equatable, CustomStringConvertible {
    /// `--config` names a file that does not exist.
    case fileNotFound(path: String)
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not valid TOML.
    case syntax(path: String, line: Int, column: Int, message: String)
    /// A key (or table) the daemon does not know, e.g. a typo.
    case unknownKey(path: String, key: String, line: Int?)
    /// A key whose value has the wrong TOML type.
    case wrongType(path: String, key: String, expected: String, line: Int?)
    /// A value of the right type that is not acceptable, from any source.
    case invalidValue(key: String, value: String, reason: String, source: ConfigSource)

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            "configuration file \(path) does not exist"
        case .unreadable(let path, let reason):
            "cannot read configuration file \(path): \(reason)"
        case .syntax(let path, let line, let column, let message):
            "\(path):\(line):\(column): not valid TOML: \(message)"
        case .unknownKey(let path, let key, let line):
            "\(Self.location(path, line)): unknown key '\(key)'"
        case .wrongType(let path, let key, let expected, let line):
            "\(Self.location(path, line)): '\(key)' must be \(expected)"
        case .invalidValue(let key, let value, let reason, let source):
            "\(key) = \(value) (from \(source)): \(reason)"
        }
    }

    private static func location(_ path: String, _ line: Int?) -> String {
        line.map { "\(path):\($0)" } ?? path
    }
}
