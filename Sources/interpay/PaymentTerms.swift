import ArgumentParser
import InterPayCore

/// What `send` and `subscribe` ask a peer for: who pays, how much, and what for.
struct PaymentTerms: ParsableArguments {
    @Argument(help: "The peer who should pay: a display name or a unique ID prefix.")
    var peer: String

    @Argument(help: "The amount, e.g. 12.50; at most the currency's decimals: JPY none, KWD three.")
    var amount: String

    @Argument(help: "ISO 4217 currency code, e.g. MXN, EUR, JPY.")
    var currency: String

    @Option(help: "What it is for (at most 200 code points; no control characters).")
    var memo: String = ""

    @Option(help: "A category for statistics, e.g. food (1 to 40 code points).")
    var category: String?

    /// The currency code as the daemon takes it.
    var currencyCode: String { currency.uppercased() }

    func validate() throws {
        do {
            _ = try Money(parsing: amount, currencyCode: currency)
        } catch {
            throw ValidationError(error.description)
        }
        guard memo.unicodeScalars.count <= Limits.maxMemoLength else {
            throw ValidationError("--memo has more than \(Limits.maxMemoLength) code points")
        }
        if let category, !(1...Limits.maxCategoryLength).contains(category.unicodeScalars.count) {
            throw ValidationError("--category must have 1 to \(Limits.maxCategoryLength) code points")
        }
    }
}
