import InterPayJSON

/// JSON text encoded once, sent as is: a control method's result, on the control socket and in the web app's
/// answers. A result is encoded straight from its `Encodable` value to text (`CanonicalJSONEncoder`), with no tree
/// between them and nothing parsed back.
public struct EncodedJSON: Sendable, Hashable {
    /// The text: canonical JSON (compact, object members sorted by name), the form `JSONValue.jsonBytes` writes too.
    public let bytes: [UInt8]

    /// The canonical JSON of `value`.
    public init(encoding value: some Encodable) throws {
        bytes = try CanonicalJSONEncoder().encode(value)
    }

    /// The text of `value`.
    public init(_ value: JSONValue) {
        bytes = value.jsonBytes
    }

    /// The text as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text read back as a value.
    public func decoded() throws(JSONParseError) -> JSONValue {
        try JSONValue(parsing: bytes)
    }
}
