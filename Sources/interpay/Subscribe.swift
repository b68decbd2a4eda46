import ArgumentParser
import InterPayContract
import InterPayControlClient
import InterPayCore

/// `interpay subscribe`
struct Subscribe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Offer a peer a subscription: a request every week, month or year, which it approves once.",
        discussion: """
            You are the payee: 'interpay subscribe bob 30 EUR --every month --memo gym' offers bob a monthly \
            request of 30 EUR. bob approves it once ('interpay approve', optionally with a cap) or declines it; \
            then your daemon sends each period's request when it falls due, and bob's daemon accepts it without \
            asking while it is within the cap. Due dates are kept in your daemon's time zone; a monthly series \
            started on the 31st falls on the last day of shorter months. Prints the series ID.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var terms: PaymentTerms

    @Option(help: "How often: week, month or year.")
    var every: String

    @Option(help: "How many periods (default: until one side unsubscribes).")
    var count: Int?

    @Option(
        help: ArgumentHelp(
            "When the first period falls due, in the daemon's time zone: YYYY-MM-DD or YYYY-MM-DDTHH:MM (default: now).",
            valueName: "date"))
    var start: String?

    func validate() throws {
        guard SubscriptionPeriod(rawValue: every) != nil else {
            throw ValidationError("--every must be week, month or year")
        }
        if let count, !(1...Limits.maxSeriesCount).contains(count) {
            throw ValidationError("--count must be from 1 to \(Limits.maxSeriesCount)")
        }
        if let start, CivilDateTime(parsing: start) == nil {
            throw DateArgument.error(start, option: "--start", forms: ["YYYY-MM-DD", "YYYY-MM-DDTHH:MM"])
        }
    }

    func run() throws {
        let params = OfferParams(
            peer: terms.peer, amount: terms.amount, currency: terms.currencyCode, every: every,
            count: count.map { Int64($0) }, start: start, memo: terms.memo, category: terms.category)
        global.output(try global.call(ControlAPI.offer, params)) { series in
            print(series.id.printable)
        }
    }
}
