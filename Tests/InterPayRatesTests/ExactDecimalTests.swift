import InterPayCore
import Testing

@testable import InterPayRates

@Suite("Exact decimals: JSON number text is parsed digit for digit")
struct ExactDecimalTests {
    @Test(
        "tricky rates keep every digit",
        arguments: [
            ("0.9013", 9013, -4, "0.9013"),
            ("151.23456789", 15_123_456_789, -8, "151.23456789"),
            ("1.0e-5", 1, -5, "0.00001"),
            ("3674.5", 36745, -1, "3674.5"),
            ("17.0500", 1705, -2, "17.05"),
            ("15674.5E0", 156_745, -1, "15674.5"),
            ("0.88e+0", 88, -2, "0.88"),
            ("1", 1, 0, "1"),
            ("1000", 1, 3, "1000"),
            ("12e2", 12, 2, "1200"),
            ("0.1", 1, -1, "0.1"),
            ("0.30000000000000004", 30_000_000_000_000_004, -17, "0.30000000000000004"),
            ("9999999999999999999", 9_999_999_999_999_999_999, 0, "9999999999999999999"),
            ("123456789.0123456789", 1_234_567_890_123_456_789, -10, "123456789.0123456789"),
            ("0.000000000000000000000000001", 1, -27, "0.000000000000000000000000001"),
            ("2.5E-3", 25, -4, "0.0025"),
        ] as [(String, UInt64, Int, String)])
    func parsesExactly(text: String, significand: UInt64, exponent: Int, plain: String) throws {
        let value = try ExactDecimal(parsing: text)
        #expect(value.significand == significand)
        #expect(value.exponent == exponent)
        #expect(value.description == plain)
        // The plain text parses back to the same value.
        #expect(try ExactDecimal(parsing: value.description) == value)
    }

    @Test("equal numbers written differently are equal")
    func normalized() throws {
        #expect(try ExactDecimal(parsing: "1.50") == ExactDecimal(parsing: "15e-1"))
        #expect(try ExactDecimal(parsing: "1.0") == ExactDecimal.one)
        #expect(try ExactDecimal(parsing: "0.0") == ExactDecimal(parsing: "0e7"))
        #expect(try ExactDecimal(parsing: "0").isZero)
        #expect(try ExactDecimal(significand: 1200, exponent: -2) == ExactDecimal(parsing: "12"))
    }

    @Test(
        "text that is not a JSON number is refused",
        arguments: [
            "", "-", ".5", "5.", "05", "+1", "1e", "1e+", "0x10", "1,5", " 1", "1 ", "NaN", "Infinity", "1.2.3",
            "١",
        ])
    func notANumber(text: String) {
        #expect(throws: ExactDecimalError.notANumber(text)) { try ExactDecimal(parsing: text) }
    }

    @Test("negative numbers are refused", arguments: ["-1", "-0.9013", "-0", "-1e-5"])
    func negative(text: String) {
        #expect(throws: ExactDecimalError.negative(text)) { try ExactDecimal(parsing: text) }
    }

    @Test("more than 19 significant digits are refused, trailing and leading zeros do not count")
    func tooManyDigits() throws {
        #expect(throws: ExactDecimalError.tooManyDigits("12345678901234567891")) {
            try ExactDecimal(parsing: "12345678901234567891")
        }
        #expect(throws: ExactDecimalError.tooManyDigits("0.12345678901234567891")) {
            try ExactDecimal(parsing: "0.12345678901234567891")
        }
        // Twenty digits whose last is a zero are nineteen significant ones.
        #expect(try ExactDecimal(parsing: "12345678901234567890").significand == 1_234_567_890_123_456_789)
        #expect(try ExactDecimal(parsing: "0.00000000000000000001234500000000000000").significand == 12345)
        #expect(try ExactDecimal(parsing: "1234567890123456789000000").exponent == 6)
    }

    @Test(
        "magnitudes beyond 1e±60 are refused without overflowing",
        arguments: ["1e61", "1e-61", "1e999999999999999999999", "1e-999999999999999999999"])
    func outOfRange(text: String) {
        #expect(throws: ExactDecimalError.outOfRange(text)) { try ExactDecimal(parsing: text) }
    }

    @Test("building from a significand and an exponent checks the range without crashing")
    func fromParts() throws {
        #expect(try ExactDecimal(significand: 9013, exponent: -4).description == "0.9013")
        #expect(throws: ExactDecimalError.self) { try ExactDecimal(significand: 1, exponent: Int.max) }
        #expect(throws: ExactDecimalError.self) { try ExactDecimal(significand: 1, exponent: Int.min) }
        #expect(throws: ExactDecimalError.self) { try ExactDecimal(significand: UInt64.max, exponent: 0) }
    }
}
