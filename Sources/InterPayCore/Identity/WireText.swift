/// What a `WireText` member must be, beyond a string.
public protocol WireTextCheck: Sendable {
    /// Why `text` cannot be the member, or nil when it can.
    static func problem(with text: String) -> String?
}

/// A frame's optional text member: left out when nil; when present, a string that passes `Check`.
///
/// A frame whose only checked members are such texts and `WireUUID`s carries this wrapper instead of spelling out an
/// `init(from:)`, so that it can leave its coding to the compiler. As a frame's member it is read and written by the
/// `KeyedDecodingContainer` and `KeyedEncodingContainer` methods below, which leave it out when nil and refuse an
/// explicit `null` like any other wrong type.
@propertyWrapper
public struct WireText<Check: WireTextCheck>: Sendable, Hashable, Codable {
    /// The text, nil when absent.
    public var wrappedValue: String?

    /// Wraps `wrappedValue`.
    public init(wrappedValue: String?) {
        self.wrappedValue = wrappedValue
    }

    /// Reads a text on its own, with the same check; `null` reads as nil.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard !container.decodeNil() else {
            wrappedValue = nil
            return
        }
        let text = try container.decode(String.self)
        if let problem = Check.problem(with: text) {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: problem)
        }
        wrappedValue = text
    }

    /// Writes the text on its own, nil as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    /// A `@WireText` member of a frame: nil when absent, otherwise a text that passes the member's check.
    public func decode<Check>(_ type: WireText<Check>.Type, forKey key: Key) throws -> WireText<Check> {
        // Optional fields are omitted when absent; an explicit null is a wrong type like any other.
        guard contains(key) else { return WireText(wrappedValue: nil) }
        let text = try decode(String.self, forKey: key)
        if let problem = Check.problem(with: text) {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: problem)
        }
        return WireText(wrappedValue: text)
    }
}

extension KeyedEncodingContainer {
    /// A `@WireText` member of a frame: left out when nil.
    public mutating func encode<Check>(_ value: WireText<Check>, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}

extension Limits {
    /// A reason (`reject`): up to `maxReasonLength` code points, no control character.
    public enum ReasonText: WireTextCheck {
        /// Its length or a control character.
        public static func problem(with text: String) -> String? {
            Limits.textProblem(in: text, length: 0...maxReasonLength)
        }
    }

    /// A payment reference (`paid`): 1 to `maxReferenceLength` code points, no control character.
    public enum ReferenceText: WireTextCheck {
        /// Its length or a control character.
        public static func problem(with text: String) -> String? {
            Limits.textProblem(in: text, length: 1...maxReferenceLength)
        }
    }

    /// A receipt's canonical text (`settle`): at most `maxReceiptSize` UTF-8 bytes. Only its size: the receiver
    /// checks it as a receipt, and keeps it only if it verifies.
    public enum ReceiptText: WireTextCheck {
        /// Its size.
        public static func problem(with text: String) -> String? {
            text.utf8.count <= maxReceiptSize ? nil : "a receipt is at most \(maxReceiptSize) bytes"
        }
    }
}
