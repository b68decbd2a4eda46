import ArgumentParser
import InterPayContract
import InterPayControl

/// `interpay decline`
struct Decline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline",
        abstract: "Decline a subscription offered to you.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var ending: SeriesEnding

    func run() async throws {
        try await SeriesCommand.run(ControlAPI.decline, ending.params, global: global)
    }
}
