/// A non-negative decimal number held exactly: `significand × 10^exponent`, e.g. 0.9013 is `9013 × 10⁻⁴`.
///
/// Exchange rates are parsed from the JSON number text straight into this type, never through `Double`, so
/// `151.23456789`, `1.0e-5` and `3674.5` are kept digit for digit. The value is normalized (no trailing zeros in
/// the significand, zero is `0 × 10⁰`), so equal numbers written differently (`1.50`, `15e-1`) compare equal.
///
/// Limits, generous for any currency: at most `maximumSignificantDigits` significant digits (what a 64-bit
/// significand holds) and a magnitude within `magnitudeRange` powers of ten.
public struct ExactDecimal: Sendable, Hashable, CustomStringConvertible {
    /// The most significant digits a value may have (every 19-digit number fits in `UInt64`).
    public static let maximumSignificantDigits = 19
    /// The allowed powers of ten of the leading digit: from 1e-60 up to just under 1e61.
    public static let magnitudeRange = -60...60

    /// One, exactly.
    public static let one = ExactDecimal(normalizedSignificand: 1, exponent: 0)

    /// The digits as an integer, without trailing zeros (0 only for the value zero).
    public let significand: UInt64
    /// The power of ten the significand is multiplied by.
    public let exponent: Int

    /// Parses a JSON number such as `"0.9013"`, `"151.23456789"`, `"1.0e-5"` or `"3674.5"`, exactly.
    ///
    /// The text must follow the JSON number grammar (no spaces, no `+` or leading zeros, no leading or trailing
    /// point, no `NaN` or `Infinity`). Negative numbers are refused; zero is accepted (callers decide whether it
    /// makes sense).
    public init(parsing text: String) throws(ExactDecimalError) {
        let bytes = Array(text.utf8)
        let isDigit: (UInt8) -> Bool = { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        var index = 0
        var isNegative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            isNegative = true
            index += 1
        }

        // Integer part: "0" or a digit 1-9 followed by digits.
        var digits: [UInt8] = []
        guard index < bytes.count, isDigit(bytes[index]) else { throw .notANumber(text) }
        if bytes[index] == UInt8(ascii: "0") {
            digits.append(0)
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                digits.append(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
        }

        // Fraction: a point and at least one digit.
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw .notANumber(text) }
            while index < bytes.count, isDigit(bytes[index]) {
                digits.append(bytes[index] - UInt8(ascii: "0"))
                fractionDigits += 1
                index += 1
            }
        }

        // Exponent: e or E, an optional sign and at least one digit. Huge exponents saturate (and are refused
        // below), so no arithmetic can overflow.
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var sign = 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw .notANumber(text) }
            var magnitude = 0
            while index < bytes.count, isDigit(bytes[index]) {
                magnitude = min(magnitude * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1_000_000_000)
                index += 1
            }
            exponent = sign * magnitude
        }
        guard index == bytes.count else { throw .notANumber(text) }
        guard !isNegative else { throw .negative(text) }

        // Normalize: no leading zeros, no trailing zeros.
        exponent -= fractionDigits
        let firstNonZero = digits.firstIndex { $0 != 0 } ?? digits.endIndex
        digits.removeFirst(firstNonZero)
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        guard !digits.isEmpty else {
            self.init(normalizedSignificand: 0, exponent: 0)
            return
        }
        guard digits.count <= Self.maximumSignificantDigits else { throw .tooManyDigits(text) }
        guard Self.magnitudeRange.contains(exponent + digits.count - 1) else { throw .outOfRange(text) }
        // 19 digits are at most 9_999_999_999_999_999_999 < UInt64.max: no overflow.
        let significand = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1) }
        self.init(normalizedSignificand: significand, exponent: exponent)
    }

    /// `significand × 10^exponent`, normalized; throws when it has too many digits or is out of range.
    public init(significand: UInt64, exponent: Int) throws(ExactDecimalError) {
        var significand = significand
        var exponent = exponent
        guard significand != 0 else {
            self.init(normalizedSignificand: 0, exponent: 0)
            return
        }
        // Far outside the range whatever the significand; checked first so the loop below cannot overflow.
        guard (-1_000...1_000).contains(exponent) else { throw .outOfRange("\(significand)e\(exponent)") }
        while significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        let digitCount = String(significand).count
        guard digitCount <= Self.maximumSignificantDigits else { throw .tooManyDigits("\(significand)e\(exponent)") }
        guard Self.magnitudeRange.contains(exponent + digitCount - 1) else {
            throw .outOfRange("\(significand)e\(exponent)")
        }
        self.init(normalizedSignificand: significand, exponent: exponent)
    }

    /// Wraps an already normalized value.
    private init(normalizedSignificand: UInt64, exponent: Int) {
        self.significand = normalizedSignificand
        self.exponent = exponent
    }

    /// Whether the value is zero.
    public var isZero: Bool { significand == 0 }

    /// The value in plain decimal notation, without exponent or superfluous zeros: `"0.9013"`, `"0.00001"`,
    /// `"3674.5"`, `"1000"`. Parsing it gives back the same value.
    public var description: String {
        significand == 0 ? "0" : Self.plainText(digits: String(significand), exponent: exponent)
    }

    /// `digits × 10^exponent` in plain notation (`digits`: decimal digits without leading zeros, not empty).
    package static func plainText(digits: String, exponent: Int) -> String {
        if exponent >= 0 {
            return digits + String(repeating: "0", count: exponent)
        }
        let integerDigits = digits.count + exponent
        if integerDigits > 0 {
            let split = digits.index(digits.startIndex, offsetBy: integerDigits)
            return digits[..<split] + "." + digits[split...]
        }
        return "0." + String(repeating: "0", count: -integerDigits) + digits
    }

    /// The significand as a wide integer, for exact arithmetic.
    package var wideSignificand: WideUInt { WideUInt(significand) }
}
