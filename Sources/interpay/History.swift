import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay history`
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Payments that are decided (accepted, paid, settled, rejected, cancelled, expired), newest first.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "How many to show.")
    var limit: Int = 50

    func run() throws {
        let reply = try global.call(ControlAPI.history, ListParams(limit: Int64(limit)))
        global.output(reply) { Formatting.paymentTable($0.payments) }
    }
}
