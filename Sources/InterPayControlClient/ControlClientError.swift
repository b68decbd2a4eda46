public import InterPayContract

/// Why a control-socket call failed.
public enum ControlClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No daemon answered at `path`: no socket file, connection refused, permission denied on the socket, no answer
    /// in time, or the connection broke. The CLI exits with code 3 and suggests starting interpayd.
    case daemonUnreachable(path: String, reason: String)
    /// The path is not a control socket this user may use: not a socket, no permission, or served by a process
    /// that should not be trusted with requests. Starting a daemon would not help; the CLI exits with code 3 and
    /// says to check the path or the user.
    case socketUnusable(path: String, reason: String)
    /// The request went out but no answer came back (the connection broke, or closed, or the answer was late): the
    /// daemon may or may not have carried it out. The CLI exits with code 3; `send` retries with its idempotency
    /// key.
    case answerLost(path: String, reason: String)
    /// A subscription the daemon had acknowledged ended: the daemon closed the connection (it stopped, or is
    /// restarting) or the connection broke. `interpay watch` connects again.
    case subscriptionEnded(path: String, reason: String)
    /// The daemon answered with a JSON-RPC error.
    case rpc(RPCError)
    /// The daemon's answer is not a valid JSON-RPC response.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .daemonUnreachable(let path, let reason): "cannot reach interpayd at \(path): \(reason)"
        case .socketUnusable(let path, let reason): "cannot use \(path) as interpayd's control socket: \(reason)"
        case .answerLost(let path, let reason):
            "no answer from interpayd at \(path) (\(reason)); the request may or may not have been carried out"
        case .subscriptionEnded(let path, let reason): "interpayd at \(path) ended the subscription: \(reason)"
        case .rpc(let error): error.message
        case .invalidResponse(let detail): "invalid response from interpayd: \(detail)"
        }
    }
}
