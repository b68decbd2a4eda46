import Foundation
import InterPayCore
import Testing

@Suite("Money and currency codes")
struct MoneyTests {
    @Test(
        "parses and formats with the currency's minor digits",
        arguments: [
            ("12.5", "MXN", Int64(1250), "12.50"),
            ("12.50", "MXN", 1250, "12.50"),
            ("0.01", "EUR", 1, "0.01"),
            ("1500", "JPY", 1500, "1500"),
            ("1", "KWD", 1000, "1.000"),
            ("1.25", "KWD", 1250, "1.250"),
            ("0.001", "BHD", 1, "0.001"),
            ("2.5", "CLF", 25000, "2.5000"),
            ("0.0001", "CLF", 1, "0.0001"),
            (" 7 ", "usd", 700, "7.00"),
            ("92233720368547758.07", "USD", Int64.max, "92233720368547758.07"),
        ])
    func parseAndFormat(text: String, code: String, minorUnits: Int64, formatted: String) throws {
        let money = try Money(parsing: text, currencyCode: code)
        #expect(money.minorUnits == minorUnits)
        #expect(money.formattedAmount == formatted)
        #expect(money.description == "\(formatted) \(code.uppercased().trimmingCharacters(in: .whitespaces))")
        // Formatting then parsing gives the same amount back.
        #expect(try Money(parsing: money.formattedAmount, currency: money.currency) == money)
    }

    @Test(
        "refuses bad amounts with a precise error",
        arguments: [
            ("-5", "EUR", MoneyError.notPositive("-5")),
            ("0", "EUR", .notPositive("0")),
            ("0.00", "EUR", .notPositive("0.00")),
            ("12.345", "EUR", .tooManyDecimals("12.345", currency: "EUR", allowed: 2)),
            ("12.500", "MXN", .tooManyDecimals("12.500", currency: "MXN", allowed: 2)),
            ("1.5", "JPY", .tooManyDecimals("1.5", currency: "JPY", allowed: 0)),
            ("1.0001", "KWD", .tooManyDecimals("1.0001", currency: "KWD", allowed: 3)),
            ("92233720368547758.08", "USD", .overflow("92233720368547758.08")),
            ("99999999999999999999999", "JPY", .overflow("99999999999999999999999")),
            ("", "EUR", .empty),
            ("  ", "EUR", .empty),
            ("abc", "EUR", .notANumber("abc")),
            ("12 50", "EUR", .notANumber("12 50")),
            ("1,000.00", "EUR", .groupingSeparators("1,000.00")),
            ("1.000.000", "EUR", .groupingSeparators("1.000.000")),
            ("1e3", "EUR", .exponent("1e3")),
            ("1e-3", "EUR", .notANumber("1e-3")),
            ("+5", "EUR", .sign("+5")),
            ("\u{2212}5", "EUR", .notPositive("\u{2212}5")),
            (".5", "EUR", .invalidAmount(".5")),
            ("5.", "EUR", .invalidAmount("5.")),
            (",5", "EUR", .invalidAmount(",5")),
            ("1.2.3", "EUR", .invalidAmount("1.2.3")),
            ("١٢", "EUR", .notANumber("١٢")),
            ("1,250", "EUR", .ambiguousSeparator("1,250")),
            ("1,000", "JPY", .ambiguousSeparator("1,000")),
            ("12,5", "JPY", .tooManyDecimals("12,5", currency: "JPY", allowed: 0)),
        ])
    func refusesBadAmounts(text: String, code: String, expected: MoneyError) {
        #expect(throws: expected) { try Money(parsing: text, currencyCode: code) }
    }

    @Test(
        "reads a comma as the decimal separator where it cannot group thousands, or where the locale says so",
        arguments: [
            ("12,50", "MXN", DecimalSeparator.point, Int64(1250)),
            ("12,5", "EUR", .point, 1250),
            ("1,25", "KWD", .point, 1250),
            ("1,2500", "CLF", .point, 12500),
            ("1,250", "KWD", .comma, 1250),
            ("12,50", "EUR", .comma, 1250),
            ("12.50", "EUR", .comma, 1250),
            ("1.25", "KWD", .comma, 1250),
            ("1.250", "KWD", .point, 1250),
        ])
    func decimalComma(text: String, code: String, separator: DecimalSeparator, minorUnits: Int64) throws {
        let money = try Money(parsing: text, currencyCode: code, decimalSeparator: separator)
        #expect(money.minorUnits == minorUnits)
    }

    @Test("in a locale that writes decimals with a comma, a point before three digits is ambiguous")
    func ambiguousPointInCommaLocale() {
        #expect(throws: MoneyError.ambiguousSeparator("1.250")) {
            try Money(parsing: "1.250", currencyCode: "KWD", decimalSeparator: .comma)
        }
    }

    @Test("each refusal says what is wrong and what to write")
    func refusalMessages() {
        #expect(MoneyError.ambiguousSeparator("1,250").description.hasSuffix("write 1250 or 1.25"))
        #expect(MoneyError.ambiguousSeparator("1,000").description.hasSuffix("write 1000 or 1"))
        #expect(MoneyError.sign("+5").description.hasSuffix("e.g. 5"))
        #expect(MoneyError.notPositive("-1").description.contains("is negative"))
        #expect(MoneyError.notPositive("0").description == "the amount must be greater than zero, got '0'")
        #expect(MoneyError.exponent("1e3").description.contains("exponent"))
        #expect(MoneyError.notANumber("abc").description.hasPrefix("'abc' is not a number"))
    }

    @Test(
        "averages are rounded half to even",
        arguments: [
            (Int64(8115), 9, Int64(902)), (2001, 2, 1000), (2003, 2, 1002), (2501, 3, 834), (5, 2, 2), (7, 2, 4),
            (-7, 2, -4), (-5, 2, -2), (0, 3, 0), (10, 0, 0), (Int64.max, 1, Int64.max),
            (Int64.max, 2, 4_611_686_018_427_387_904),
        ])
    func halfEvenAverage(total: Int64, count: Int, average: Int64) {
        #expect(Money.averageMinorUnits(total: total, count: count) == average)
    }

    @Test("refuses unknown and malformed currency codes")
    func refusesBadCurrencies() {
        #expect(throws: MoneyError.unknownCurrency("XYZ")) { try CurrencyCode("XYZ") }
        #expect(throws: MoneyError.unknownCurrency("XAU")) { try CurrencyCode("XAU") }
        #expect(throws: MoneyError.invalidCurrencyCode("mxn")) { try CurrencyCode("mxn") }
        #expect(throws: MoneyError.invalidCurrencyCode("EURO")) { try CurrencyCode("EURO") }
        #expect(throws: MoneyError.invalidCurrencyCode("")) { try CurrencyCode("") }
        #expect(throws: MoneyError.unknownCurrency("ABC")) { try Money(parsing: "1", currencyCode: "abc") }
    }

    @Test("minor digits follow ISO 4217 for the special cases")
    func minorDigits() throws {
        let expected = [
            "JPY": 0, "KRW": 0, "CLP": 0, "KWD": 3, "BHD": 3, "JOD": 3, "OMR": 3, "TND": 3, "IQD": 3,
            "LYD": 3, "CLF": 4, "UYW": 4, "EUR": 2, "USD": 2, "MXN": 2, "GBP": 2,
        ]
        for (code, digits) in expected {
            #expect(try CurrencyCode(code).minorDigits == digits, "\(code)")
        }
    }

    @Test("the Swift table equals protocol/currencies.json")
    func tableMatchesProtocol() throws {
        let url = RepositoryFiles.root.appending(path: "protocol/currencies.json")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let table = try #require(json?["currencies"] as? [String: Int])
        let swift = Dictionary(uniqueKeysWithValues: CurrencyCode.all.map { ($0.code, $0.minorDigits) })
        #expect(swift == table)
        #expect(table.count > 150)
    }

    @Test("wire form is minor units and code, and refuses non-positive amounts")
    func codable() throws {
        let money = try Money(parsing: "12.50", currencyCode: "MXN")
        let data = try JSONEncoder().encode(money)
        #expect(try JSONDecoder().decode(Money.self, from: data) == money)
        let zero = Data(#"{"currency":"MXN","minorUnits":0}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Money.self, from: zero) }
    }
}
