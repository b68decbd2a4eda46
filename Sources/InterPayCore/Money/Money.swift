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

    /// Parses a positive amount typed by a person, such as `"12.5"`, `"12.50"` or `"12,50"` for MXN.
    ///
    /// The one amount parser of the CLI, the web app and the control methods. Accepted: ASCII digits with at most
    /// one decimal separator, at least one digit on each side of it, and no more digits after it than the currency
    /// has (`"1500"` for JPY, `"1.250"` for KWD). The point is always a decimal separator, the protocol's own; a
    /// comma is one where it cannot be a thousands separator (`"12,50"`, not `"1,250"`), or always when the
    /// writer's locale writes decimals with a comma (`decimalSeparator: .comma`, as in es-ES). In such a locale a
    /// point followed by exactly three digits (`"1.250"`) could be a thousands separator and is refused as
    /// ambiguous. Each refusal says what is wrong: a sign, an exponent, letters, thousands separators, an
    /// ambiguous separator, too many decimals for the currency, zero, or a value beyond 64-bit minor units.
    public init(
        parsing text: String, currency: CurrencyCode, decimalSeparator: DecimalSeparator = .point
    ) throws(MoneyError) {
        let bytes = Array(text.trimmingSpaces().utf8)
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let point = UInt8(ascii: ".")
        let comma = UInt8(ascii: ",")
        guard let first = bytes.first else { throw .empty }
        if first == UInt8(ascii: "-") || text.trimmingSpaces().hasPrefix("\u{2212}") { throw .notPositive(text) }
        if first == UInt8(ascii: "+") { throw .sign(text) }
        let separators = bytes.indices.filter { bytes[$0] == point || bytes[$0] == comma }
        let others = bytes.filter { !digits.contains($0) && $0 != point && $0 != comma }
        if !others.isEmpty {
            let exponent = others.allSatisfy { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            throw exponent && others.count == 1 && digits.contains(first) ? .exponent(text) : .notANumber(text)
        }
        guard separators.count <= 1 else {
            // Groups of three after the first separator read as thousands separators: "1,000.00", "1.000.000".
            let groups = bytes.split(omittingEmptySubsequences: false) { $0 == point || $0 == comma }
            let grouped = groups.dropFirst().dropLast().allSatisfy { $0.count == 3 } && groups.first?.isEmpty == false
            throw grouped ? .groupingSeparators(text) : .invalidAmount(text)
        }
        var whole = bytes[...]
        var fraction: ArraySlice<UInt8> = []
        if let index = separators.first {
            whole = bytes[..<index]
            fraction = bytes[(index + 1)...]
            guard !whole.isEmpty, !fraction.isEmpty else { throw .invalidAmount(text) }
            let separator: DecimalSeparator = bytes[index] == point ? .point : .comma
            // The locale's own separator is a decimal one; the other is one only where it cannot group thousands.
            if separator != decimalSeparator, fraction.count == 3, separator == .comma || decimalSeparator == .comma {
                throw .ambiguousSeparator(text)
            }
        }
        guard fraction.count <= currency.minorDigits else {
            throw .tooManyDecimals(text, currency: currency.code, allowed: currency.minorDigits)
        }
        let padding = Array(repeating: UInt8(ascii: "0"), count: currency.minorDigits - fraction.count)
        var value: Int64 = 0
        for digit in whole + fraction + padding {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .overflow(text) }
            value = added
        }
        guard value > 0 else { throw .notPositive(text) }
        self.init(minorUnits: value, currency: currency)
    }

    /// Parses an amount and a currency code typed by a person, e.g. `("12.50", "mxn")`.
    public init(
        parsing text: String, currencyCode: String, decimalSeparator: DecimalSeparator = .point
    ) throws(MoneyError) {
        try self.init(
            parsing: text, currency: try CurrencyCode(userInput: currencyCode), decimalSeparator: decimalSeparator)
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

extension Money {
    /// The mean of `count` amounts that add up to `totalMinorUnits`, in minor units, rounded half to even (the
    /// rounding of bookkeeping: 8115 / 9 = 901.67 gives 902, 2001 / 2 = 1000.5 gives 1000, 2003 / 2 gives 1002).
    /// Zero when `count` is not positive.
    public static func averageMinorUnits(total totalMinorUnits: Int64, count: Int) -> Int64 {
        guard count > 0 else { return 0 }
        let divisor = Int64(count)
        let (quotient, remainder) = totalMinorUnits.quotientAndRemainder(dividingBy: divisor)
        // Compare twice the remainder's magnitude with the divisor without overflow: remainder < divisor.
        let twice = remainder.magnitude * 2
        let away: Bool
        if twice > divisor.magnitude {
            away = true
        } else if twice == divisor.magnitude {
            away = quotient % 2 != 0
        } else {
            away = false
        }
        guard away else { return quotient }
        return totalMinorUnits < 0 ? quotient - 1 : quotient + 1
    }
}
