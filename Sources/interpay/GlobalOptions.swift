import ArgumentParser
import FoundationEssentials
import InterPayControl

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Control socket of the daemon.",
            discussion:
                "Default: $INTERPAY_SOCKET, else $XDG_RUNTIME_DIR/interpay/interpayd.sock, else /run/interpay/interpayd.sock."
        ),
        completion: .file())
    var socket: String?

    @Flag(help: "Print JSON (stable field names, see the README) instead of tables.")
    var json = false

    /// The socket path the daemon uses too.
    var socketPath: String {
        ControlSocketPath.resolve(explicit: socket, environment: ProcessInfo.processInfo.environment)
    }

    /// Calls a control method on the daemon, turning failures into CLI errors with exit codes.
    func call<Params, Result>(
        _ method: ControlMethod<Params, Result>, _ params: Params
    ) async throws(CLIError) -> ControlReply<Result> {
        do {
            return try await ControlClient(path: socketPath).call(method, params)
        } catch {
            throw CLIError(error, socketPath: socketPath)
        }
    }

    /// Calls a control method that takes no params.
    func call<Result>(_ method: ControlMethod<NoParams, Result>) async throws(CLIError) -> ControlReply<Result> {
        try await call(method, NoParams())
    }

    /// Prints the reply's JSON as received (with `--json`) or runs `human` with its typed value.
    func output<Value>(_ reply: ControlReply<Value>, human: (Value) -> Void) {
        if json {
            print(reply.json.jsonText)
        } else {
            human(reply.value)
        }
    }
}
