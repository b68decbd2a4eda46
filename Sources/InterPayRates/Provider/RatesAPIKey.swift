public import Foundation

/// The exchange-rate API key: kept out of logs and messages.
///
/// The key comes from the configuration (`rates_api_key`) or the environment (`INTERPAY_RATES_API_KEY`, see
/// `fromEnvironment(_:)`); it is never hard-coded. Printing a key shows only `****`, and `redact(_:)` masks it in any
/// text, such as a URL or an error message, before that text is logged or shown.
public struct RatesAPIKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The environment variable that holds the key.
    public static let environmentVariable = "INTERPAY_RATES_API_KEY"
    /// What replaces the key in redacted text.
    public static let mask = "****"
    /// The accepted lengths of a key.
    public static let lengthRange = 8...128

    /// The key itself; only the provider reads it, to build request URLs.
    let secret: String

    /// Wraps a key. It must be 8 to 128 characters, each a letter, a digit, `-`, `_`, `.` or `~` (so it goes into
    /// a URL unchanged). The error never repeats the key.
    public init(_ secret: String) throws(RatesError) {
        guard Self.lengthRange.contains(secret.utf8.count) else {
            throw .invalidAPIKey(
                reason: "it must have \(Self.lengthRange.lowerBound) to \(Self.lengthRange.upperBound) characters")
        }
        let allowed: (UInt8) -> Bool = { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
        }
        guard secret.utf8.allSatisfy(allowed) else {
            throw .invalidAPIKey(reason: "it may contain only letters, digits, '-', '_', '.' and '~'")
        }
        self.secret = secret
    }

    /// The key in `INTERPAY_RATES_API_KEY`, or nil when the variable is unset or blank.
    ///
    /// Surrounding spaces and newlines are ignored; a malformed key is an error rather than silently unused.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(RatesError) -> RatesAPIKey? {
        guard let value = environment[environmentVariable]?.trimmingCharacters(in: .whitespacesAndNewlines),
            !value.isEmpty
        else { return nil }
        return try RatesAPIKey(value)
    }

    /// `text` with every occurrence of the key replaced by `mask`.
    public func redact(_ text: String) -> String {
        text.replacingOccurrences(of: secret, with: Self.mask)
    }

    /// `****`: the key is never printed.
    public var description: String { Self.mask }

    /// `RatesAPIKey(****)`: the key is never printed, not even by `dump` or `debugPrint`.
    public var debugDescription: String { "RatesAPIKey(\(Self.mask))" }

    /// A mirror with the key masked, so `dump` and reflection-based loggers cannot reveal it.
    public var customMirror: Mirror { Mirror(self, children: ["secret": Self.mask]) }
}
