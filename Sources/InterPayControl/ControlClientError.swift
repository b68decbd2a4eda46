/// Why a control-socket call failed.
public enum ControlClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No daemon answered at `path`: no socket file, connection refused, permission denied on the socket, no answer
    /// in time, or the connection broke. The CLI exits with code 3 and suggests starting interpayd.
    case daemonUnreachable(path: String, reason: String)
    /// The daemon answered with a JSON-RPC error.
    case rpc(RPCError)
    /// The daemon's answer is not a valid JSON-RPC response.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .daemonUnreachable(let path, let reason): "cannot reach interpayd at \(path): \(reason)"
        case .rpc(let error): error.message
        case .invalidResponse(let detail): "invalid response from interpayd: \(detail)"
        }
    }
}
