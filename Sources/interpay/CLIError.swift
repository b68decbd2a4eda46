import FoundationEssentials
import Glibc
import InterPayContract
import InterPayControlClient
import InterPayCore

/// A failure with its message and the documented exit code.
struct CLIError: Error {
    let message: String
    let exitCode: Int32

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Why a file could not be read, in words ("no such file or directory", "permission denied"), never a Swift
    /// type's dump.
    static func fileProblem(_ error: any Error) -> String {
        if let error = error as? CocoaError {
            if let posix = error.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
            switch error.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            case .fileReadNoPermission: return "permission denied"
            case .fileReadTooLarge: return "the file is too large"
            default: break
            }
        }
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "it cannot be read"
    }

    /// The daemon's message, escaped (`SafeText`: it may quote a peer's text); for a text that names several payments
    /// or peers, its first line and then each candidate on a line of its own, each escaped.
    static func text(of rpc: RPCError) -> String {
        guard rpc.reason == .ambiguous, case .object(let data)? = rpc.data,
            case .array(let candidates)? = data["candidates"]
        else { return SafeText.escaped(rpc.message) }
        let first = rpc.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? rpc.message
        let lines = candidates.compactMap { candidate -> String? in
            guard case .string(let text) = candidate else { return nil }
            return "  " + SafeText.escaped(text)
        }
        return ([SafeText.escaped(first)] + lines).joined(separator: "\n")
    }

    /// Maps a control-socket failure to its exit code.
    init(_ error: ControlClientError, socketPath: String) {
        switch error {
        case .daemonUnreachable(let path, let reason):
            self.init(
                message: """
                    cannot reach interpayd at \(path): \(reason)
                    Is it running? Start it with 'interpayd' (or 'systemctl start interpayd'), or point to its \
                    socket with --socket or INTERPAY_SOCKET, or to its configuration file with --config.
                    """,
                exitCode: 3)
        case .socketUnusable:
            self.init(
                message: """
                    \(error.description)
                    Check the path given with --socket, INTERPAY_SOCKET or the configuration file, and run the command \
                    as a user the daemon lets in (its own, or a member of its socket's group).
                    """,
                exitCode: 3)
        case .answerLost, .subscriptionEnded:
            self.init(message: error.description, exitCode: 3)
        case .rpc(let rpc):
            let code: Int32 =
                switch rpc.code {
                case RPCError.Code.notFound: 4
                case RPCError.Code.conflict: 5
                case RPCError.Code.peerUnreachable: 6
                case RPCError.Code.invalidParams: 2
                default: 1
                }
            self.init(message: Self.text(of: rpc), exitCode: code)
        default:
            self.init(message: error.description, exitCode: 1)
        }
    }
}
