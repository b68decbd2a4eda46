/// An amount of money: a whole number of the currency's minor units (cents, fils, yen) and the currency.
///
/// Never floating point. `Money` parses and formats with exactly the currency's minor digits.
public struct Money: Sendable, Hashable, CustomStringConvertible {
    /// The amount in minor units: 12.50 MXN is 1250, 1500 JPY is 1500, 1.250 KWD is 1250.
    public let minorUnits: Int64
    /// The currency of the amount.
    public let currency: CurrencyCode

    /// Wraps a number of minor units. Request amounts are positive; validation happens where they are built.
    public init(minorUnits: Int64, currency: CurrencyCode) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Parses a positive amount typed by a person, such as `"12.5"` or `"12.50"` for MXN.
    ///
    /// Accepted: ASCII digits with at most one decimal point, at least one digit before it, and no more digits
    /// after it than the currency has (`"1500"` for JPY, `"1.250"` for KWD). Refused, each with its own error:
    /// signs, exponents, thousands separators, zero, too many decimals, and values beyond 64-bit minor units.
    public init(parsing text: String, currency: CurrencyCode) throws(MoneyError) {
        let trimmed = text.trimmingSpaces()
        let bytes = Array(trimmed.utf8)
        let dot = UInt8(ascii: ".")
        let isDigit: (UInt8) -> Bool = { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        if bytes.first == UInt8(ascii: "-") { throw .notPositive(text) }
        let parts = bytes.split(separator: dot, maxSplits: 2, omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.allSatisfy(isDigit)
        else { throw .invalidAmount(text) }
        let fraction = parts.count == 2 ? parts[1] : []
        guard parts.count == 1 || (!fraction.isEmpty && fraction.allSatisfy(isDigit)) else {
            throw .invalidAmount(text)
        }
        var fractionDigits = Array(fraction)
        guard fractionDigits.count <= currency.minorDigits else {
            throw .tooManyDecimals(text, currency: currency.code, allowed: currency.minorDigits)
        }
        fractionDigits += Array(repeating: UInt8(ascii: "0"), count: currency.minorDigits - fractionDigits.count)
        var value: Int64 = 0
        for digit in whole + fractionDigits {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .overflow(text) }
            value = added
        }
        guard value > 0 else { throw .notPositive(text) }
        self.init(minorUnits: value, currency: currency)
    }

    /// Parses an amount and a currency code typed by a person, e.g. `("12.50", "mxn")`.
    public init(parsing text: String, currencyCode: String) throws(MoneyError) {
        try self.init(parsing: text, currency: try CurrencyCode(userInput: currencyCode))
    }

    /// The amount with exactly the currency's minor digits, without the code: `"12.50"`, `"1500"`, `"1.250"`.
    public var formattedAmount: String {
        let digits = currency.minorDigits
        let negative = minorUnits < 0
        // The magnitude as text; `Int64.min` has no positive Int64, so go through the unsigned magnitude.
        var text = String(minorUnits.magnitude)
        if digits > 0 {
            if text.count <= digits { text = String(repeating: "0", count: digits - text.count + 1) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
        }
        return negative ? "-" + text : text
    }

    /// The amount followed by its code: `"12.50 MXN"`.
    public var description: String { "\(formattedAmount) \(currency.code)" }
}

extension Money: Codable {
    private enum CodingKeys: String, CodingKey {
        case currency
        case minorUnits
    }

    /// Decodes the wire form `{"currency": "MXN", "minorUnits": 1250}`; the amount must be positive.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let currency = try container.decode(CurrencyCode.self, forKey: .currency)
        let minorUnits = try container.decode(Int64.self, forKey: .minorUnits)
        guard minorUnits > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .minorUnits, in: container, debugDescription: "amount must be positive, got \(minorUnits)")
        }
        self.init(minorUnits: minorUnits, currency: currency)
    }
}
