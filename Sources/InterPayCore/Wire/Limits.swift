/// Protocol limits shared by every implementation (see `protocol/PROTOCOL.md`). Lengths of text are counted in
/// Unicode code points, as JSON Schema's `maxLength` does.
public enum Limits {
    /// The largest frame body a peer must accept: 64 KiB.
    public static let maxFrameSize = 65_536
    /// Longest memo on a request.
    public static let maxMemoLength = 200
    /// Longest category on a request.
    public static let maxCategoryLength = 40
    /// Longest display name (a DNS-SD instance name label is at most 63 bytes).
    public static let maxNameLength = 63
    /// Longest free text in `reject`, `error` and `close`.
    public static let maxReasonLength = 200
    /// Longest payment reference in `paid` and in a receipt.
    public static let maxReferenceLength = 100
    /// Largest receipt text, in UTF-8 bytes (a receipt with every field at its longest is far below it).
    public static let maxReceiptSize = 8_192
    /// The most entries of `capabilities` in `hello` (PROTOCOL.md §7.2): the three defined fit many times over.
    public static let maxCapabilities = 16
    /// Longest entry of `capabilities` in `hello`.
    public static let maxCapabilityLength = 32
    /// Longest agent string in `hello`.
    public static let maxAgentLength = 64
    /// How far a request's `createdAt` may be ahead of the receiver's clock, in seconds (PROTOCOL.md §10).
    public static let maxClockSkew: Int64 = 300
    /// The longest life of a request, `expiresAt − createdAt`, in seconds: 30 days (PROTOCOL.md §10).
    public static let maxRequestLifetime: Int64 = 30 * 86_400
    /// The most periods a subscription series may have, and one more than the largest period index (PROTOCOL.md
    /// §8.6): a weekly series of 10 000 periods lasts almost two centuries.
    public static let maxSeriesCount = 10_000
    /// Longest time zone identifier in a series offer (IANA names are far shorter).
    public static let maxTimeZoneLength = 64
    /// The latest time a frame may carry: 9999-12-31T23:59:59Z (PROTOCOL.md §7.1). Calendar arithmetic on a time
    /// near `Int64.max` (a peer's series `start` plus its zone's offset) would overflow.
    public static let maxTime: Int64 = 253_402_300_799
    /// Protocol versions are numbered 1 to 65535.
    public static let versionRange = 1...65_535
}

extension Limits {
    /// Why `text` is not a frame's text member: its length in code points lies outside `range`, or it holds a
    /// control character (`SafeText`); nil when it is one.
    static func textProblem(in text: String, length range: ClosedRange<Int>) -> String? {
        guard range.contains(text.unicodeScalars.count) else {
            return
                "length \(text.unicodeScalars.count) code points is outside \(range.lowerBound)...\(range.upperBound)"
        }
        if let scalar = SafeText.forbiddenScalar(in: text) {
            return "control character \(SafeText.describe(scalar)) is not allowed"
        }
        return nil
    }
}

extension KeyedDecodingContainer {
    /// Decodes a string whose length in code points lies in `range` and that holds no control character
    /// (`SafeText`).
    func decodeText(forKey key: Key, length range: ClosedRange<Int>) throws -> String {
        let text = try decode(String.self, forKey: key)
        if let problem = Limits.textProblem(in: text, length: range) {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: problem)
        }
        return text
    }

    /// Decodes a ping/pong nonce: an integer from 0 to 2^63 − 1 (the range every JSON peer can represent).
    func decodeNonce(forKey key: Key) throws -> UInt64 {
        let nonce = try decode(UInt64.self, forKey: key)
        guard nonce <= UInt64(Int64.max) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "nonce above 2^63 - 1")
        }
        return nonce
    }

    /// Decodes an optional string whose length, when present, lies in `range`.
    func decodeTextIfPresent(forKey key: Key, length range: ClosedRange<Int>) throws -> String? {
        // Optional fields are omitted when absent; an explicit null is a wrong type like any other.
        guard contains(key) else { return nil }
        return try decodeText(forKey: key, length: range)
    }
}
