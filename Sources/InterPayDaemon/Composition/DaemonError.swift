/// Why the daemon cannot start or run, with what a person needs to fix it.
public enum DaemonError: Error, Sendable, CustomStringConvertible {
    /// A `--peer` value is not `HOST:PORT`.
    case invalidPeer(String, reason: String)
    /// The display name is empty or too long.
    case invalidName(String, reason: String)
    /// The state directory or the identity key in it fails a check, or another daemon holds it.
    case state(String)
    /// A transport problem (identity, TLS, listening).
    case transport(String)
    /// The ledger cannot be opened.
    case storage(String)
    /// The control socket cannot be served (e.g. another interpayd is running).
    case control(String)
    /// The exchange-rate source cannot be set up (e.g. a bad URL template).
    case rates(String)
    /// The web app cannot be served (e.g. its token file cannot be written).
    case web(String)
    /// The metrics cannot be served (e.g. their token file cannot be read or written).
    case metrics(String)

    public var description: String {
        switch self {
        case .invalidPeer(let text, let reason): "invalid peer '\(text)': \(reason)"
        case .invalidName(let name, let reason): "invalid name '\(name)': \(reason)"
        case .state(let reason): reason
        case .transport(let reason): reason
        case .storage(let reason): "cannot open the ledger: \(reason)"
        case .control(let reason): reason
        case .rates(let reason): "exchange rates: \(reason)"
        case .web(let reason): "web app: \(reason)"
        case .metrics(let reason): "metrics: \(reason)"
        }
    }
}
