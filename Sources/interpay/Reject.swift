import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay reject`
struct Reject: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reject",
        abstract: "Reject a payment request you received: you decline to pay it.",
        discussion: "Waits for the payee's confirmation and prints the outcome; exit 5 if it was already decided.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: PaymentArgument

    @Option(help: "Why, shown to the payee (at most 200 code points; no control characters).")
    var reason: String?

    func validate() throws {
        if let reason, reason.unicodeScalars.count > 200 {
            throw ValidationError("--reason has more than 200 code points")
        }
    }

    func run() throws {
        try PaymentDecisionCommand.run(
            ControlAPI.reject, PaymentParams(payment: target.payment, reason: reason), global: global)
    }
}
