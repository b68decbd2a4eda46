import ArgumentParser
import InterPayContract

/// `interpay refund PAYMENT [AMOUNT] --memo TEXT`: give back all or part of a payment you were paid.
struct Refund: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund",
        abstract: "Give back all or part of a payment you asked for and were paid (a return, a double charge).",
        discussion: """
            Works on an accepted, paid or settled payment of which you are the payee, once or several times, up to \
            its amount in all (at most 16 refunds). Without AMOUNT, all that is left is refunded. InterPay moves no \
            money: hand it back first (cash, card reversal, transfer), then record it here. Your daemon signs a \
            refund receipt and sends it to the payer, whose ledger links the refund to the payment; 'interpay \
            receipt REFUND' writes it and 'interpay verify-receipt' checks it. Statistics and exports net refunds \
            out of what was paid. Refused towards a peer whose daemon does not support refunds.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: PaymentArgument

    @Argument(help: "How much to give back, in the payment's currency (e.g. 10.00); all that is left if omitted.")
    var amount: String?

    @Option(help: "Why the money is given back, at most 200 characters (the payer sees it).")
    var memo: String = ""

    func validate() throws {
        if memo.unicodeScalars.count > 200 { throw ValidationError("--memo is at most 200 characters") }
    }

    func run() throws {
        let reply = try global.call(
            ControlAPI.refund, RefundParams(payment: target.payment, amount: amount, memo: memo))
        global.output(reply) { refund in
            print(
                "refunded \(refund.amount.printable) \(refund.currency.printable) of "
                    + "\(Formatting.shortID(refund.refundOf ?? target.payment)) as \(refund.shortID.printable)"
                    + (refund.queued == true ? " (queued: the payer's daemon is not reachable now)" : ""))
        }
    }
}
