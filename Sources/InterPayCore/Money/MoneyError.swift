/// Why a currency code or an amount was refused.
public enum MoneyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code is not three upper-case letters.
    case invalidCurrencyCode(String)
    /// The code has the right shape but is not an active ISO 4217 currency InterPay supports.
    case unknownCurrency(String)
    /// The text is not a plain decimal number such as `12.50`.
    case invalidAmount(String)
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
        case .invalidAmount(let text):
            "'\(text)' is not an amount (expected digits with an optional decimal point, e.g. 12.50)"
        case .notPositive(let text):
            "the amount must be greater than zero, got '\(text)'"
        case .tooManyDecimals(let text, let currency, let allowed):
            allowed == 0
                ? "\(currency) has no decimal places, got '\(text)'"
                : "\(currency) has at most \(allowed) decimal place\(allowed == 1 ? "" : "s"), got '\(text)'"
        case .overflow(let text):
            "the amount '\(text)' is too large"
        }
    }
}
