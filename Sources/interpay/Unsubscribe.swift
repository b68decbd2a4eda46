import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay unsubscribe`
struct Unsubscribe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsubscribe",
        abstract: "End a subscription, from either side: no further period is requested or accepted automatically.",
        discussion: """
            Requests already sent stay as they are (the payer may still accept or reject a pending one; the \
            payee may cancel it).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var ending: SeriesEnding

    func run() throws {
        try SeriesCommand.run(ControlAPI.unsubscribe, ending.params, global: global)
    }
}
