import FoundationEssentials
import InterPayContract
import InterPayControl
import InterPayCore

/// A failure with its message and the documented exit code.
struct CLIError: Error {
    let message: String
    let exitCode: Int32

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
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
        case .answerLost:
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
            // The daemon's message may quote a peer's text: print it escaped (`SafeText`).
            self.init(message: SafeText.escaped(rpc.message), exitCode: code)
        default:
            self.init(message: error.description, exitCode: 1)
        }
    }
}
