/// Why a text is not an exact decimal that can serve as an exchange rate.
public enum ExactDecimalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a JSON number (e.g. `"1,5"`, `"0x10"`, `".5"`, `"NaN"`).
    case notANumber(String)
    /// The number is negative.
    case negative(String)
    /// The number has more significant digits than `ExactDecimal.maximumSignificantDigits`.
    case tooManyDigits(String)
    /// The number's magnitude is outside `ExactDecimal.magnitudeRange` powers of ten.
    case outOfRange(String)

    /// A one-line explanation naming the refused text.
    public var description: String {
        switch self {
        case .notANumber(let text):
            "'\(text)' is not a decimal number"
        case .negative(let text):
            "'\(text)' is negative"
        case .tooManyDigits(let text):
            "'\(text)' has more than \(ExactDecimal.maximumSignificantDigits) significant digits"
        case .outOfRange(let text):
            "'\(text)' is outside the supported range 1e\(ExactDecimal.magnitudeRange.lowerBound)"
                + "…1e\(ExactDecimal.magnitudeRange.upperBound)"
        }
    }
}
