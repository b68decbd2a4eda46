import ArgumentParser
import InterPayControl
import InterPayCore

/// `interpay subscribe`
struct Subscribe: AsyncParsableCommand {
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

    @Argument(help: "The peer who should pay: a display name or a unique ID prefix.")
    var peer: String

    @Argument(help: "The amount of each period, e.g. 30.00.")
    var amount: String

    @Argument(help: "ISO 4217 currency code, e.g. EUR.")
    var currency: String

    @Option(help: "How often: week, month or year.")
    var every: String

    @Option(help: "How many periods (default: until one side unsubscribes).")
    var count: Int?

    @Option(
        help: ArgumentHelp(
            "When the first period falls due, in the daemon's time zone: YYYY-MM-DD or YYYY-MM-DDTHH:MM (default: now).",
            valueName: "date"))
    var start: String?

    @Option(help: "What it is for (at most 200 code points).")
    var memo: String = ""

    @Option(help: "A category for statistics, e.g. gym (1 to 40 code points).")
    var category: String?

    func validate() throws {
        do {
            _ = try Money(parsing: amount, currencyCode: currency)
        } catch {
            throw ValidationError(error.description)
        }
        guard SubscriptionPeriod(rawValue: every) != nil else {
            throw ValidationError("--every must be week, month or year")
        }
        if let count, !(1...Limits.maxSeriesCount).contains(count) {
            throw ValidationError("--count must be from 1 to \(Limits.maxSeriesCount)")
        }
        guard memo.unicodeScalars.count <= Limits.maxMemoLength else {
            throw ValidationError("--memo has more than \(Limits.maxMemoLength) code points")
        }
        if let category, !(1...Limits.maxCategoryLength).contains(category.unicodeScalars.count) {
            throw ValidationError("--category must have 1 to \(Limits.maxCategoryLength) code points")
        }
        if let start, CivilDateTime(parsing: start) == nil {
            throw ValidationError("--start must be YYYY-MM-DD or YYYY-MM-DDTHH:MM")
        }
    }

    func run() async throws {
        let params = OfferParams(
            peer: peer, amount: amount, currency: currency.uppercased(), every: every, count: count.map { Int64($0) },
            start: start, memo: memo, category: category)
        global.output(try await global.call(ControlAPI.offer, params)) { series in
            print(series.id.printable)
        }
    }
}
