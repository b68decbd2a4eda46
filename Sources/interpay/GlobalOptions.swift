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

    /// Calls a method on the daemon, turning failures into CLI errors with exit codes.
    func call(_ method: String, _ params: [String: JSONValue] = [:]) async throws(CLIError) -> JSONValue {
        do {
            return try await ControlClient(path: socketPath).call(method, params: .object(params))
        } catch {
            throw CLIError(error, socketPath: socketPath)
        }
    }

    /// Prints `value` as JSON (with `--json`) or runs `human`.
    func output(_ value: JSONValue, human: () -> Void) {
        if json {
            print(value.jsonText)
        } else {
            human()
        }
    }
}
