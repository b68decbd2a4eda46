/// An active ISO 4217 alphabetic currency code together with its number of minor digits.
///
/// Only codes in the project's ISO 4217 table can be constructed, so every `CurrencyCode` value knows how many
/// decimal places its amounts have (JPY 0, EUR 2, KWD 3, CLF 4).
public struct CurrencyCode: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The three upper-case letters, e.g. `"MXN"`.
    public let code: String
    /// How many digits follow the decimal point in this currency (the ISO 4217 exponent).
    public let minorDigits: Int

    /// Looks up an alpha-3 code. It must be exactly three upper-case ASCII letters and an active code.
    public init(_ code: String) throws(MoneyError) {
        guard code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw .invalidCurrencyCode(code)
        }
        guard let digits = CurrencyTable.minorDigits[code] else { throw .unknownCurrency(code) }
        self.code = code
        self.minorDigits = digits
    }

    /// Looks up a code typed by a person: surrounding spaces are ignored and lower case is accepted.
    public init(userInput: String) throws(MoneyError) {
        let trimmed = userInput.trimmingSpaces()
        let upper = trimmed.uppercased()
        try self.init(upper)
    }

    /// Every currency InterPay knows, sorted by code.
    public static var all: [CurrencyCode] {
        CurrencyTable.minorDigits.keys.sorted().compactMap { try? CurrencyCode($0) }
    }

    /// Ten to the power of `minorDigits`: how many minor units make one major unit.
    public var minorUnitsPerMajor: Int64 {
        var result: Int64 = 1
        for _ in 0..<minorDigits { result *= 10 }
        return result
    }

    public var description: String { code }

    public static func < (lhs: CurrencyCode, rhs: CurrencyCode) -> Bool { lhs.code < rhs.code }
}

extension CurrencyCode: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines (no Foundation needed).
    func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
