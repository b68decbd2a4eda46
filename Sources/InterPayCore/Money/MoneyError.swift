/// Why a currency code or an amount was refused.
public enum MoneyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code is not three upper-case letters.
    case invalidCurrencyCode(String)
    /// The code has the right shape but is not an active ISO 4217 currency InterPay supports.
    case unknownCurrency(String)
    /// Nothing was written.
    case empty
    /// The text is not a plain decimal number such as `12.50` (a separator without digits on both sides, or
    /// several separators that are not thousands separators).
    case invalidAmount(String)
    /// The text has letters or symbols other than digits and one decimal separator.
    case notANumber(String)
    /// The text starts with `+`.
    case sign(String)
    /// The text is written with an exponent, such as `1e3`.
    case exponent(String)
    /// The text has thousands separators, such as `1,000.00`.
    case groupingSeparators(String)
    /// The text's one separator could be a decimal or a thousands separator, such as `1,250`.
    case ambiguousSeparator(String)
    /// The amount is zero or negative; requests are for positive amounts only.
    case notPositive(String)
    /// The amount has more decimal places than the currency has minor digits.
    case tooManyDecimals(String, currency: String, allowed: Int)
    /// The amount does not fit in 64-bit minor units.
    case overflow(String)

    public var description: String {
        switch self {
        case .invalidCurrencyCode(let code):
            "'\(code)' is not a currency code (expected three letters such as EUR)"
        case .unknownCurrency(let code):
            "unknown currency '\(code)' (not an active ISO 4217 code)"
        case .empty:
            "no amount given (write digits with an optional decimal separator, e.g. 12.50)"
        case .invalidAmount(let text):
            "'\(text)' is not an amount (write digits with an optional decimal separator, e.g. 12.50 or 0.50)"
        case .notANumber(let text):
            "'\(text)' is not a number (write digits with an optional decimal separator, e.g. 12.50)"
        case .sign(let text):
            "'\(text)' has a sign: write the amount alone, e.g. \(text.drop { $0 == " " || $0 == "+" })"
        case .exponent(let text):
            "'\(text)' has an exponent: write the amount out in full, e.g. 1000 for 1e3"
        case .groupingSeparators(let text):
            "'\(text)' has thousands separators: leave them out, e.g. 1000.00 for 1,000.00"
        case .ambiguousSeparator(let text):
            "'\(text)' could mean a thousand times more or less: write \(Self.unambiguous(text))"
        case .notPositive(let text):
            text.contains("-") || text.contains("\u{2212}")
                ? "'\(text)' is negative: amounts are greater than zero (the direction says who pays)"
                : "the amount must be greater than zero, got '\(text)'"
        case .tooManyDecimals(let text, let currency, let allowed):
            allowed == 0
                ? "\(currency) has no decimal places, got '\(text)'"
                : "\(currency) has at most \(allowed) decimal place\(allowed == 1 ? "" : "s"), got '\(text)'"
        case .overflow(let text):
            "the amount '\(text)' is too large"
        }
    }
}

extension MoneyError {
    /// The two unambiguous ways to write `text`'s digits: `"1,250"` gives "1250 or 1.25".
    fileprivate static func unambiguous(_ text: String) -> String {
        let digits = text.filter { $0.isASCII && $0.isNumber }
        let whole = String(digits.dropLast(3))
        var fraction = String(digits.suffix(3))
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(digits) or \(whole)" : "\(digits) or \(whole).\(fraction)"
    }
}
