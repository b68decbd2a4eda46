public import InterPayJSON

extension JSONValue: Codable {
    /// Decodes any JSON value; integers that fit in `Int64` become `.int`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each `try?` asks whether the value is of that type; the last branch reports a value of none.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// The JSON form of an `Encodable` value, encoded straight into a tree (`CanonicalJSONEncoder.tree`): no JSON
    /// text is written and read back, and integers stay exact. The control socket's answers and events are made
    /// this way, once each.
    public init(encoding value: some Encodable) throws {
        let tree = try CanonicalJSONEncoder().tree(value)
        do {
            try self.init(tree)
        } catch {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "the encoded value is not JSON: \(error)"))
        }
    }

    /// Decodes a `Decodable` type from this value, straight from the value (`JSONTreeDecoder`: no JSON text is
    /// written or read again); its errors are `DecodingError`s as `JSONDecoder` reports them.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONTreeDecoder().decode(type, from: tree)
    }

    /// The value as the strict reader's tree: numbers as their JSON text.
    public var tree: JSONTree {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .number(String(value))
        case .double(let value): value.isFinite ? .number("\(value)") : .null
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.tree))
        case .object(let members):
            .object(members.map { JSONTree.Member(key: $0.key, value: $0.value.tree) })
        }
    }
}
