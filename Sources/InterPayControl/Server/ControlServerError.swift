/// Why the control server could not start, with the path involved.
public enum ControlServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Something already accepts connections on the socket path.
    case alreadyRunning(path: String)
    /// The path exists and is not a socket; it is left alone.
    case notASocket(path: String)
    /// The existing socket could not be probed (e.g. no permission to connect).
    case probeFailed(path: String, reason: String)
    /// The socket's directory could not be created or is not a directory.
    case directoryFailed(path: String, reason: String)
    /// The path is longer than a Unix socket address allows.
    case pathTooLong(path: String, limit: Int)
    /// Binding the socket failed.
    case bindFailed(path: String, reason: String)
    /// The socket's mode or group could not be set.
    case permissionsFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .alreadyRunning(let path): "another interpayd is running (socket \(path))"
        case .notASocket(let path): "\(path) exists and is not a socket; remove it or choose another socket path"
        case .probeFailed(let path, let reason): "cannot check the existing socket \(path): \(reason)"
        case .directoryFailed(let path, let reason): "cannot prepare the socket directory \(path): \(reason)"
        case .pathTooLong(let path, let limit): "socket path \(path) is longer than \(limit) bytes"
        case .bindFailed(let path, let reason): "cannot listen on \(path): \(reason)"
        case .permissionsFailed(let path, let reason): "cannot set the permissions of \(path): \(reason)"
        }
    }
}
