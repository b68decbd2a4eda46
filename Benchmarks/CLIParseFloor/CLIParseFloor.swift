import ArgumentParser

/// The floor under `interpay status`'s start-up figure (`scripts/bench-lan --only cli`): a program whose only work is
/// to parse what `interpay status --socket PATH` is given, with the argument parser the CLI uses, and print. The
/// release build links it as it links the CLI (`make bench-build`), so the two differ only in what the CLI does
/// besides parsing: its own commands' types, the control client, the call and the table.
@main
struct CLIParseFloor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cli-parse-floor",
        abstract: "Parse 'status --socket PATH' as interpay would, print ok, and exit.",
        subcommands: [Status.self])

    /// `status`, with the one option the benchmark gives it.
    struct Status: ParsableCommand {
        /// The control socket: parsed, not used.
        @Option(help: "A path; only parsed.") var socket: String?

        func run() { print("ok") }
    }
}
