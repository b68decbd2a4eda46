import ArgumentParser
import InterPayContract
import InterPayControlClient
import InterPayCore

/// `interpay paid`
struct Paid: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paid",
        abstract: "Mark a payment you accepted as paid: you handed the money over (cash, card, transfer…).",
        discussion: """
            InterPay moves no money: this records that you paid, outside InterPay, and tells the payee, who \
            confirms with 'interpay received'. Waits for the payee's answer and prints the outcome; refused before \
            the payee confirmed your acceptance, and with a peer whose daemon does not support receipts.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: PaymentArgument

    @Option(help: "How you paid.")
    var method: PaymentMethod?

    @Option(help: "Your reference for the payment (a transfer number…), at most 100 characters.")
    var reference: String?

    func validate() throws {
        if let reference, reference.isEmpty || reference.unicodeScalars.count > 100 {
            throw ValidationError("--reference has 1 to 100 characters")
        }
    }

    func run() throws {
        try PaymentDecisionCommand.run(
            ControlAPI.paid, PaymentParams(payment: target.payment, method: method, reference: reference),
            global: global)
    }
}
