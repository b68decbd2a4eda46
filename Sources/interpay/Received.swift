import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay received`
struct Received: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "received",
        abstract: "Confirm the money of a payment you asked for arrived: the payment is settled.",
        discussion: """
            Works on an accepted payment, whether or not the payer marked it paid. Your daemon signs a receipt with \
            its identity key and sends it to the payer ('interpay receipt' writes it).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: PaymentArgument

    func run() throws {
        try PaymentDecisionCommand.run(
            ControlAPI.received, PaymentParams(payment: target.payment), global: global)
    }
}
