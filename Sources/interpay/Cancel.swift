import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay cancel`
struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a payment request you sent, while it is still pending.",
        discussion: "Exit 5 if the payer already accepted or rejected it, or it expired.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: PaymentArgument

    func run() throws {
        try PaymentDecisionCommand.run(
            ControlAPI.cancel, PaymentParams(payment: target.payment), global: global)
    }
}
