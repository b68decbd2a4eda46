/// A JSON document as parsed by the one strict reader of the project: every number kept as the exact text it was
/// written with, object members in document order.
///
/// Peer frames, control-socket requests and exchange-rate bodies are all read with `JSONTree.parse`. Typed frames are
/// then decoded with `JSONDecoder`; the control socket converts the tree to its `JSONValue`; the rates read their
/// numbers from the text, exactly, never through `Double`.
public enum JSONTree: Sendable, Hashable {
    /// An object's members in document order (with `.keep`, a repeated name appears twice).
    case object([Member])
    /// An array.
    case array([JSONTree])
    /// A string, with escapes decoded.
    case string(String)
    /// A number, as its JSON text, e.g. `"1.0e-5"`.
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// One member of an object.
    public struct Member: Sendable, Hashable {
        /// The member's name.
        public let key: String
        /// The member's value.
        public let value: JSONTree

        /// A member named `key`.
        public init(key: String, value: JSONTree) {
            self.key = key
            self.value = value
        }
    }

    /// What the parser does with an object that has two members of the same name (compared code point by code
    /// point, after unescaping).
    public enum DuplicateMembers: Sendable {
        /// Refuse the document (RFC 8259 leaves the meaning open and parsers disagree on which one counts; the
        /// protocol and the control socket refuse such documents).
        case refuse
        /// Keep both, in order; `subscript(key:)` answers the first.
        case keep
    }

    /// The first member named `key`, when this is an object that has one.
    public subscript(key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The number text, when this is a number.
    public var numberText: String? {
        guard case .number(let text) = self else { return nil }
        return text
    }

    /// A short name of the value's kind, for error messages.
    public var kind: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}
