import ArgumentParser
import InterPayControl

/// `interpay decline`
struct Decline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline",
        abstract: "Decline a subscription offered to you.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The series: its ID or a unique prefix of at least 4 characters.")
    var series: String

    @Option(help: "Why, shown to the payee (at most 200 code points).")
    var reason: String?

    func run() async throws {
        try await SeriesCommand.run(
            ControlAPI.decline, SeriesParams(series: series, reason: reason), global: global)
    }
}
