import ArgumentParser
import FoundationEssentials
import Glibc
import InterPayContract
import InterPayControlClient

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    // The defaults of both are told once, in `interpay --help` (`Interpay.whereTheDaemonIs`), not under every
    // subcommand.
    @Option(help: "Control socket of the daemon (default: as 'interpay --help' says).", completion: .file())
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "The daemon's configuration file, read for its control socket (default: as 'interpay --help' says).",
            valueName: "path"),
        completion: .file(extensions: ["toml"]))
    var config: String?

    @Flag(help: "Print JSON (stable field names: docs/control-api.md) instead of tables.")
    var json = false

    /// The daemon's socket: `--socket`, `$INTERPAY_SOCKET`, the configuration file's `[control] socket`, the
    /// defaults the daemon uses too.
    func socketPath() throws(CLIError) -> String {
        let environment = ProcessInfo.processInfo.environment
        if let socket, !socket.isEmpty { return socket }
        if let fromEnvironment = environment[ControlSocketPath.environmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        let isRoot = geteuid() == 0
        let location = ConfigFileLocation.resolve(
            explicit: config, isRoot: isRoot, environment: environment,
            home: FileManager.default.homeDirectoryForCurrentUser.path)
        var candidates = [location]
        if !location.required, !isRoot { candidates.append((ConfigFileLocation.systemPath, false)) }
        for candidate in candidates {
            if let path = try Self.configuredSocket(in: candidate.path, required: candidate.required) {
                return path
            }
        }
        return ControlSocketPath.resolve(explicit: nil, environment: environment)
    }

    /// `[control] socket` of the file at `path`; nil when the file does not set it, or when an optional file is
    /// missing or not readable by this user (a system daemon's file may be private to it).
    private static func configuredSocket(in path: String, required: Bool) throws(CLIError) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else {
            guard required else { return nil }
            let reason = FileManager.default.fileExists(atPath: path) ? "not readable by this user" : "no such file"
            throw CLIError(message: "cannot read the configuration file \(path): \(reason)", exitCode: 2)
        }
        let text = String(decoding: data, as: UTF8.self)
        switch ConfiguredSocket.read(toml: text) {
        case .path(let socket): return socket
        case .unset: return nil
        case .unreadable(let line, let reason):
            throw CLIError(
                message: """
                    cannot read the control socket from \(path):\(line): \(reason)
                    Check the file with 'interpayd --check-config --config \(path)', or give the socket with --socket.
                    """,
                exitCode: 2)
        }
    }

    /// Calls a control method on the daemon, turning failures into CLI errors with exit codes.
    /// `timeout` bounds the wait for the answer (the client's default, 30 s, unless a method needs longer).
    func call<Params, Result>(
        _ method: ControlMethod<Params, Result>, _ params: Params, timeout: Duration = ControlClient.defaultTimeout
    ) throws(CLIError) -> ControlReply<Result> {
        let path = try socketPath()
        do {
            // On this thread: a command only waits for the daemon, and starts no thread for it (ControlClient).
            return try ControlClient(path: path, timeout: timeout).callBlocking(method, params)
        } catch {
            throw CLIError(error, socketPath: path)
        }
    }

    /// Calls a control method that takes no params.
    func call<Result>(_ method: ControlMethod<NoParams, Result>) throws(CLIError) -> ControlReply<Result> {
        try call(method, NoParams())
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
