import ArgumentParser
import InterPayControl

/// `interpay approve`
struct Approve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a subscription offered to you: its requests within the cap are accepted without asking.",
        discussion: """
            The cap (--max, in the series' currency) defaults to the offered amount. A request of the series above \
            the cap, or after the series ended, waits for you like any other request.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SeriesArgument

    @Option(help: "The most one period may ask and still be accepted without asking, e.g. 35.00.")
    var max: String?

    func run() async throws {
        try await SeriesCommand.run(ControlAPI.approve, SeriesParams(series: target.series, max: max), global: global)
    }
}
