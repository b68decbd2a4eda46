/// Why bytes could not be decoded into a `PaymentMessage`. Decoding never crashes; it throws one of these.
///
/// `code` is the name used by `protocol/vectors/invalid.json`.
public enum FrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The length prefix announces more than the configured maximum; nothing was buffered.
    case oversize(length: UInt32, limit: Int)
    /// The input ended before the prefix or the announced body was complete.
    case truncated(expected: Int, available: Int)
    /// The body is not valid UTF-8.
    case invalidUTF8
    /// The body is not JSON, or not a JSON object (the detail says which).
    case invalidJSON(String)
    /// `type` names a frame this implementation does not know.
    case unknownType(String)
    /// A required field is absent (dotted path, e.g. `payment.amount`).
    case missingField(String)
    /// A field has the wrong JSON type or a value outside its range.
    case invalidField(String, detail: String)

    /// The stable code of this error, as in the protocol's invalid vectors.
    public var code: String {
        switch self {
        case .oversize: "oversize"
        case .truncated: "truncated"
        case .invalidUTF8: "invalid-utf8"
        case .invalidJSON: "invalid-json"
        case .unknownType: "unknown-type"
        case .missingField: "missing-field"
        case .invalidField: "invalid-field"
        }
    }

    public var description: String {
        switch self {
        case .oversize(let length, let limit): "frame of \(length) bytes exceeds the limit of \(limit) bytes"
        case .truncated(let expected, let available): "truncated frame: expected \(expected) bytes, have \(available)"
        case .invalidUTF8: "frame body is not valid UTF-8"
        case .invalidJSON(let detail): "frame body is not a JSON object: \(detail)"
        case .unknownType(let type): "unknown frame type '\(type)'"
        case .missingField(let path): "missing field '\(path)'"
        case .invalidField(let path, let detail): "invalid field '\(path)': \(detail)"
        }
    }
}
