import InterPayCore
import Testing

@testable import InterPayRates

@Suite("Currency conversion: exact arithmetic, cross rates, half-even rounding to minor digits")
struct CurrencyConverterTests {
    /// USD-based rates, written as the provider would.
    private static let rateTexts: [String: String] = [
        "USD": "1", "EUR": "0.9013", "JPY": "151.23456789", "KWD": "0.30845", "GBP": "0.8", "AED": "3.6725",
        "XAF": "600", "BHD": "0.376",
    ]

    private func rates(_ texts: [String: String] = rateTexts, staleReason: RatesError? = nil) throws -> CurrentRates {
        var rates: [String: ExactDecimal] = [:]
        for (code, text) in texts { rates[code] = try ExactDecimal(parsing: text) }
        let snapshot = RateSnapshot(
            base: try CurrencyCode("USD"), rates: rates,
            lastUpdate: Timestamp(secondsSince1970: RatesFixtures.lastUpdate),
            nextUpdate: Timestamp(secondsSince1970: RatesFixtures.nextUpdate),
            fetchedAt: Timestamp(secondsSince1970: RatesFixtures.lastUpdate + 60), source: "test")
        return CurrentRates(
            snapshot: snapshot, now: Timestamp(secondsSince1970: RatesFixtures.lastUpdate + 3_600),
            staleReason: staleReason)
    }

    private func convert(_ minorUnits: Int64, _ from: String, to: String, with rates: CurrentRates) throws -> Quote {
        try CurrencyConverter.convert(
            Money(minorUnits: minorUnits, currency: try CurrencyCode(from)), to: try CurrencyCode(to), using: rates)
    }

    @Test(
        "conversions to and from the base and across it",
        arguments: [
            // 100.00 USD × 0.9013 = 90.13 EUR
            (10_000, "USD", "EUR", 9_013),
            // 10.00 USD × 151.23456789 = 1512.3456789 → 1512 JPY (no minor digits)
            (1_000, "USD", "JPY", 1_512),
            // 1512 JPY ÷ 151.23456789 = 9.99771… → 10.00 USD
            (1_512, "JPY", "USD", 1_000),
            // 12.34 USD × 0.30845 = 3.806273 → 3.806 KWD (three minor digits)
            (1_234, "USD", "KWD", 3_806),
            // Cross: 100.00 EUR × 151.23456789 ÷ 0.9013 = 16779.60… → 16780 JPY
            (10_000, "EUR", "JPY", 16_780),
            // Cross: 100000 JPY × 0.30845 ÷ 151.23456789 = 203.95469… → 203.955 KWD
            (100_000, "JPY", "KWD", 203_955),
            // Cross: 123.45 EUR × 3.6725 ÷ 0.9013 = 503.0180… → 503.02 AED
            (12_345, "EUR", "AED", 50_302),
            // Three digits to three digits: 1.000 KWD × 0.376 ÷ 0.30845 = 1.21899… → 1.219 BHD
            (1_000, "KWD", "BHD", 1_219),
            // Beyond 2⁵³ (where a Double loses cents): 92233720368547.75 USD × 0.9013 = 83130252168172.08… EUR
            (9_223_372_036_854_775, "USD", "EUR", 8_313_025_216_817_209),
        ] as [(Int64, String, String, Int64)])
    func converts(minorUnits: Int64, from: String, to: String, expected: Int64) throws {
        let quote = try convert(minorUnits, from, to: to, with: try rates())
        #expect(quote.converted == Money(minorUnits: expected, currency: try CurrencyCode(to)))
        #expect(quote.amount.minorUnits == minorUnits)
        #expect(quote.from.code == from)
        #expect(quote.to.code == to)
    }

    @Test("a quote names the exact rates used, the rate's timestamp and freshness")
    func quoteDetails() throws {
        let direct = try convert(10_000, "USD", to: "EUR", with: try rates())
        #expect(direct.rate == "0.9013")
        #expect(direct.rateIsExact)
        #expect(direct.fromRate == .one)
        #expect(direct.toRate == (try ExactDecimal(parsing: "0.9013")))
        #expect(direct.base.code == "USD")
        #expect(direct.ratesUpdatedAt == Timestamp(secondsSince1970: RatesFixtures.lastUpdate))
        #expect(direct.ratesAge == 3_600)
        #expect(!direct.isStale)

        // A terminating cross rate is exact: 3.6725 ÷ 0.8 = 4.590625.
        let exactCross = try convert(100, "GBP", to: "AED", with: try rates())
        #expect(exactCross.rate == "4.590625")
        #expect(exactCross.rateIsExact)

        // A non-terminating one is shown with 19 significant digits, rounded half-even.
        let cross = try convert(10_000, "EUR", to: "JPY", with: try rates())
        #expect(cross.rate == "167.7960367136358593")
        #expect(!cross.rateIsExact)
        let inverse = try convert(1_512, "JPY", to: "USD", with: try rates())
        #expect(inverse.rate == "0.006612244898450379009")
        #expect(!inverse.rateIsExact)

        let stale = try convert(
            10_000, "USD", to: "EUR", with: try rates(staleReason: .missingAPIKey))
        #expect(stale.isStale)
    }

    @Test(
        "exact halves round to the even neighbour, both up and down",
        arguments: [
            // GBP rate 0.5: 0.01 USD → 0.005 → 0.00; 0.03 → 0.015 → 0.02; 0.05 → 0.025 → 0.02; 0.07 → 0.035 → 0.04
            (1, "USD", "GBP", "0.5", 0),
            (3, "USD", "GBP", "0.5", 2),
            (5, "USD", "GBP", "0.5", 2),
            (7, "USD", "GBP", "0.5", 4),
            // Negative amounts round symmetrically.
            (-3, "USD", "GBP", "0.5", -2),
            (-5, "USD", "GBP", "0.5", -2),
            // JPY rate 150.5 / 151.5: 1.00 USD → 150.5 → 150; 151.5 → 152
            (100, "USD", "JPY", "150.5", 150),
            (100, "USD", "JPY", "151.5", 152),
            // KWD rate 0.0025: 1.00 USD → 0.0025 → 0.002; 3.00 USD → 0.0075 → 0.008
            (100, "USD", "KWD", "0.0025", 2),
            (300, "USD", "KWD", "0.0025", 8),
            // Just above and below a half are not ties.
            (100, "USD", "JPY", "150.5000001", 151),
            (100, "USD", "JPY", "151.4999999", 151),
        ] as [(Int64, String, String, String, Int64)])
    func halfEven(minorUnits: Int64, from: String, to: String, rate: String, expected: Int64) throws {
        let quote = try convert(minorUnits, from, to: to, with: try rates(["USD": "1", to: rate]))
        #expect(quote.converted.minorUnits == expected)
    }

    @Test("the same currency converts to itself, unrounded")
    func sameCurrency() throws {
        let quote = try convert(Int64.max, "KWD", to: "KWD", with: try rates())
        #expect(quote.converted.minorUnits == Int64.max)
        #expect(quote.rate == "1")
    }

    @Test("a result beyond 64-bit minor units is an overflow error, not a crash")
    func overflow() throws {
        #expect(throws: RatesError.conversionOverflow(amount: "92233720368547758.07 USD", to: "JPY")) {
            try convert(Int64.max, "USD", to: "JPY", with: try rates())
        }
        // Cross with a huge rate ratio.
        let extreme = try rates(["USD": "1", "EUR": "1e-50", "JPY": "1e50"])
        #expect(throws: RatesError.self) { try convert(1, "EUR", to: "JPY", with: extreme) }
        // Int64.min's magnitude is representable only as a negative result.
        let unit = try rates(["USD": "1", "EUR": "1"])
        #expect(try convert(Int64.min, "USD", to: "EUR", with: unit).converted.minorUnits == Int64.min)
    }

    @Test("a currency missing from the rates is named in the error")
    func unsupportedCurrency() throws {
        let error = #expect(throws: RatesError.self) { try convert(100, "USD", to: "CLF", with: try rates()) }
        #expect(error == .unsupportedCurrency(code: "CLF", base: "USD"))
        #expect(error?.description == "no exchange rate for CLF (the USD rates do not list it)")
        #expect(throws: RatesError.unsupportedCurrency(code: "MXN", base: "USD")) {
            try convert(100, "MXN", to: "USD", with: try rates())
        }
    }

    @Test("wide integers multiply, divide and print exactly")
    func wideIntegers() {
        let big = WideUInt(UInt64.max) * WideUInt(UInt64.max)
        #expect(big.description == "340282366920938463426481119284349108225")
        let (quotient, remainder) = big.quotientAndRemainder(dividingBy: WideUInt(UInt64.max))
        #expect(quotient == WideUInt(UInt64.max))
        #expect(remainder.isZero)
        let power = WideUInt.powerOfTen(40)
        #expect(power.description == "1" + String(repeating: "0", count: 40))
        let (q, r) = (power + WideUInt(7)).quotientAndRemainder(dividingBy: WideUInt.powerOfTen(20))
        #expect(q == WideUInt.powerOfTen(20))
        #expect(r == WideUInt(7))
        #expect((power - WideUInt(1)).description == String(repeating: "9", count: 40))
    }
}
