/// Where an effective setting came from, for `interpayd --check-config` and error messages.
public enum ConfigSource: Sendable, Equatable, CustomStringConvertible {
    /// A command-line flag, e.g. `--port`.
    case flag(String)
    /// An environment variable, e.g. `INTERPAY_SOCKET`.
    case environment(String)
    /// The configuration file.
    case file(path: String)
    /// The built-in default.
    case defaultValue

    public var description: String {
        switch self {
        case .flag(let flag): flag
        case .environment(let variable): "$\(variable)"
        case .file(let path): path
        case .defaultValue: "default"
        }
    }
}
