import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay convert`
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an amount between currencies with the daemon's exchange rates.",
        discussion: """
            'interpay convert 12.50 MXN EUR' prints the amount in euros, rounded half-even to the currency's \
            decimals, with the rate and how old the rates are. The daemon fetches rates from its configured source \
            (interpayd --rates-url) and caches them; when the source cannot be reached it uses the last rates it \
            has and says they are stale.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The amount, e.g. 12.50 (at most the currency's decimals).")
    var amount: String

    @Argument(help: "The currency of the amount (ISO 4217), e.g. MXN.")
    var from: String

    @Argument(help: "The currency to convert to, e.g. EUR.")
    var to: String

    func validate() throws {
        for code in [from, to] where code.count != 3 || !code.allSatisfy(\.isLetter) {
            throw ValidationError("'\(code)' is not a currency code (three letters, e.g. EUR)")
        }
    }

    func run() throws {
        let reply = try global.call(ControlAPI.convert, ConvertParams(amount: amount, from: from, to: to))
        global.output(reply) { result in
            let stale = result.stale ? " (stale: the source could not be reached)" : ""
            print(
                "\(result.from?.amount.printable ?? amount) \(result.from?.currency.printable ?? from.uppercased()) = "
                    + "\(result.conversion.amount.printable) \(result.conversion.currency.printable)")
            print(
                "rate \(result.conversion.rate.printable), rates of "
                    + "\(Formatting.localTime(result.conversion.ratesUpdatedAt))\(stale)")
        }
    }
}
