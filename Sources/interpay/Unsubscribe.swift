import ArgumentParser
import InterPayControl

/// `interpay unsubscribe`
struct Unsubscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsubscribe",
        abstract: "End a subscription, from either side: no further period is requested or accepted automatically.",
        discussion: """
            Requests already sent stay as they are (the payer may still accept or reject a pending one; the \
            payee may cancel it).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The series: its ID or a unique prefix of at least 4 characters.")
    var series: String

    @Option(help: "Why, shown to the peer (at most 200 code points).")
    var reason: String?

    func run() async throws {
        try await SeriesCommand.run(
            ControlAPI.unsubscribe, SeriesParams(series: series, reason: reason), global: global)
    }
}
