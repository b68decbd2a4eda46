// JSON text: read with the project's one strict parser (`JSONTree`), written compactly, so that integers never
// pass through `Double`.

public import InterPayJSON

extension JSONValue {
    /// The deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 256

    /// Parses one JSON value from UTF-8 bytes (surrounding whitespace allowed, nothing else after the value).
    ///
    /// An object with two members of the same name is refused (which of the two counts is not defined). A number
    /// without fraction or exponent that fits in 64 bits is `.int`; any other finite number is `.double`; one
    /// beyond `Double`'s range is refused.
    public init(parsing bytes: some Sequence<UInt8>) throws(JSONParseError) {
        let tree: JSONTree
        do {
            tree = try JSONTree.parse(Array(bytes), maximumDepth: Self.maximumDepth, duplicateMembers: .refuse)
        } catch {
            throw JSONParseError(error.reason, offset: error.offset)
        }
        self = try JSONValue(tree)
    }

    /// The value of a parsed tree; its numbers become `.int` or `.double` as `init(parsing:)` says.
    public init(_ tree: JSONTree) throws(JSONParseError) {
        switch tree {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        case .number(let text):
            let integral = !text.utf8.contains {
                $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
            }
            if integral, let value = Int64(text) {
                self = .int(value)
            } else if let value = Double(text), value.isFinite {
                self = .double(value)
            } else {
                throw JSONParseError("number out of range: \(text.prefix(40))", offset: 0)
            }
        case .array(let elements):
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try JSONValue(element)) }
            self = .array(values)
        case .object(let members):
            var values: [String: JSONValue] = [:]
            values.reserveCapacity(members.count)
            for member in members { values[member.key] = try JSONValue(member.value) }
            self = .object(values)
        }
    }

    /// Parses one JSON value from a string.
    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: text.utf8)
    }

    /// The compact JSON text of the value (no whitespace, object keys sorted, non-finite doubles as `null`).
    public var jsonText: String {
        String(decoding: jsonBytes, as: UTF8.self)
    }

    /// The compact JSON text of the value as UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    /// Appends the compact JSON text of the value to `output`.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value):
            output.append(contentsOf: String(value).utf8)
        case .double(let value):
            output.append(contentsOf: Self.text(of: value).utf8)
        case .string(let value):
            CanonicalJSONEncoder.appendString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted(by: CanonicalJSONEncoder.precedes).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                CanonicalJSONEncoder.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                members[key, default: .null].write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A finite double as a JSON number; JSON has no infinities or NaN, so those become `null`.
    private static func text(of value: Double) -> String {
        guard value.isFinite else { return "null" }
        // Swift prints the shortest text that reads back to the same double ("0.1", "1e-05", "1e+20"),
        // all of which are valid JSON numbers.
        return value.description
    }
}
