import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay decline`
struct Decline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline",
        abstract: "Decline a subscription offered to you.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var ending: SeriesEnding

    func run() throws {
        try SeriesCommand.run(ControlAPI.decline, ending.params, global: global)
    }
}
