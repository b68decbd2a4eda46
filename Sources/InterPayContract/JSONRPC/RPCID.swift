/// The `id` of a JSON-RPC request: a string or an integer (requests without one are notifications).
public enum RPCID: Sendable, Hashable, CustomStringConvertible {
    /// An integer id.
    case int(Int64)
    /// A string id.
    case string(String)

    /// Reads an id from its JSON form; nil for anything but a string or an integer.
    public init?(_ value: JSONValue) {
        switch value {
        case .int(let number): self = .int(number)
        case .string(let text): self = .string(text)
        default: return nil
        }
    }

    /// The JSON form of the id.
    public var jsonValue: JSONValue {
        switch self {
        case .int(let number): .int(number)
        case .string(let text): .string(text)
        }
    }

    public var description: String { jsonValue.jsonText }
}

extension RPCID: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(stringLiteral value: String) { self = .string(value) }
}
