/// A parsed JSON value that keeps every number as the exact text it was written with.
///
/// Foundation's JSON readers turn numbers into `Double` (0.9013 is not a double), so the rates body is read with
/// `RawJSONParser` into this tree instead and numbers are converted exactly where they are used.
enum RawJSONValue: Sendable, Hashable {
    /// An object's members in document order (duplicate keys are kept; see `members(named:)`).
    case object([Member])
    /// An array.
    case array([RawJSONValue])
    /// A string, with escapes decoded.
    case string(String)
    /// A number, as its JSON text, e.g. `"1.0e-5"`.
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// One member of an object.
    struct Member: Sendable, Hashable {
        /// The member's name.
        let key: String
        /// The member's value.
        let value: RawJSONValue
    }

    /// The first member named `key`, when this is an object that has one.
    subscript(key: String) -> RawJSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, when this is a string.
    var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The number text, when this is a number.
    var numberText: String? {
        guard case .number(let text) = self else { return nil }
        return text
    }

    /// A short name of the value's kind, for error messages.
    var kind: String {
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
