import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay accept`
struct Accept: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a payment request you received: you agree to pay it.",
        discussion:
            "Waits for the payee's confirmation and prints the outcome; exit 5 if it was already cancelled, rejected or expired."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: PaymentArgument

    func run() throws {
        try PaymentDecisionCommand.run(
            ControlAPI.accept, PaymentParams(payment: target.payment), global: global)
    }
}
