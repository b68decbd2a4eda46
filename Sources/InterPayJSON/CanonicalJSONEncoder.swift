/// Encodes `Encodable` values as canonical JSON (`protocol/PROTOCOL.md` §5): compact, object members sorted by name
/// in Unicode code point order, recursively; non-ASCII characters as raw UTF-8; in strings only `"`, `\` and
/// U+0000–U+001F escaped (`\b`, `\t`, `\n`, `\f`, `\r`, else `\u00xx` in lower-case hex). The same bytes as Python's
/// `json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
///
/// Written here rather than configured from `JSONEncoder` because the form is the protocol's, not Foundation's (whose
/// sorted-keys order is case-insensitive, which only coincides for ASCII names), and because frames are encoded on
/// every step of the payment path, where `JSONEncoder`'s generality cost several times the rest of the encoding.
public struct CanonicalJSONEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// The canonical JSON of `value`.
    public func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = EncodedNode()
        try root.store(value, codingPath: [])
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try root.write(into: &output, codingPath: [])
        return output
    }

    /// `value` as the tree its canonical JSON would parse to (members sorted as written), without writing the text
    /// and reading it back: for a caller that holds JSON as a tree (the control socket's answers).
    public func tree(_ value: some Encodable) throws -> JSONTree {
        let root = EncodedNode()
        try root.store(value, codingPath: [])
        return try root.tree(codingPath: [])
    }
}

/// One value being encoded: filled by a container, written once the whole value is encoded.
private final class EncodedNode {
    enum Content {
        case unset
        case object([(key: String, node: EncodedNode)])
        case array([EncodedNode])
        case scalar(JSONTree)
    }

    var content = Content.unset

    /// Encodes `value` into this node, the common scalar types without a round through `encode(to:)`.
    func store<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        switch value {
        case let string as String: content = .scalar(.string(string))
        case let integer as Int64: content = .scalar(.number(String(integer)))
        case let integer as Int: content = .scalar(.number(String(integer)))
        case let integer as UInt64: content = .scalar(.number(String(integer)))
        case let bool as Bool: content = .scalar(.bool(bool))
        default: try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    /// The member `key` of this object (made an object if it was not one yet); a key encoded twice keeps the last
    /// value, as `JSONEncoder` does.
    func member(_ key: String) -> EncodedNode {
        var members: [(key: String, node: EncodedNode)] = []
        if case .object(let existing) = content { members = existing }
        content = .unset  // `members` is then the only reference, appended to in place
        let node = EncodedNode()
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].node = node
        } else {
            members.append((key, node))
        }
        content = .object(members)
        return node
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    func append() -> EncodedNode {
        var elements: [EncodedNode] = []
        if case .array(let existing) = content { elements = existing }
        content = .unset  // `elements` is then the only reference, appended to in place
        let node = EncodedNode()
        elements.append(node)
        content = .array(elements)
        return node
    }

    func tree(codingPath: [any CodingKey]) throws -> JSONTree {
        switch content {
        case .unset:
            throw EncodingError.invalidValue(
                self, .init(codingPath: codingPath, debugDescription: "A value encoded nothing."))
        case .object(let members):
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            return .object(try sorted.map { .init(key: $0.key, value: try $0.node.tree(codingPath: codingPath)) })
        case .array(let elements):
            return .array(try elements.map { try $0.tree(codingPath: codingPath) })
        case .scalar(let value):
            return value
        }
    }

    func write(into output: inout [UInt8], codingPath: [any CodingKey]) throws {
        switch content {
        case .unset:
            throw EncodingError.invalidValue(
                self, .init(codingPath: codingPath, debugDescription: "A value encoded nothing."))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Code point order: for valid Unicode text, UTF-8 byte order is code point order.
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                try member.node.write(into: &output, codingPath: codingPath)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try element.write(into: &output, codingPath: codingPath)
            }
            output.append(UInt8(ascii: "]"))
        case .scalar(let value):
            switch value {
            case .string(let string): Self.writeString(string, into: &output)
            case .number(let text): output.append(contentsOf: text.utf8)
            case .bool(let bool): output.append(contentsOf: (bool ? "true" : "false").utf8)
            case .null: output.append(contentsOf: "null".utf8)
            case .object, .array:
                // Only scalars are stored as `.scalar`.
                throw EncodingError.invalidValue(
                    value, .init(codingPath: codingPath, debugDescription: "A container stored as a scalar."))
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0..<0x20:
                output.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)],
                ])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// The `Encoder` handed to a value's `encode(to:)`: its containers write into one node.
private struct NodeEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(NodeKeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return NodeUnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}

extension NodeEncoder: SingleValueEncodingContainer {
    func encodeNil() { node.content = .scalar(.null) }
    func encode(_ value: Bool) { node.content = .scalar(.bool(value)) }
    func encode(_ value: String) { node.content = .scalar(.string(value)) }
    func encode(_ value: Double) throws { node.content = .scalar(.number(try Self.text(of: value, codingPath))) }
    func encode(_ value: Float) throws { node.content = .scalar(.number(try Self.text(of: Double(value), codingPath))) }
    func encode(_ value: Int) { integer(value) }
    func encode(_ value: Int8) { integer(value) }
    func encode(_ value: Int16) { integer(value) }
    func encode(_ value: Int32) { integer(value) }
    func encode(_ value: Int64) { integer(value) }
    func encode(_ value: UInt) { integer(value) }
    func encode(_ value: UInt8) { integer(value) }
    func encode(_ value: UInt16) { integer(value) }
    func encode(_ value: UInt32) { integer(value) }
    func encode(_ value: UInt64) { integer(value) }
    func encode<T: Encodable>(_ value: T) throws { try node.store(value, codingPath: codingPath) }

    private func integer(_ value: some FixedWidthInteger) { node.content = .scalar(.number(String(value))) }

    /// A double as JSON: integral values without a fraction (as Python and `JSONEncoder` write them), others in
    /// Swift's shortest form that reads back to the same value.
    static func text(of value: Double, _ codingPath: [any CodingKey]) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number."))
        }
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }
}

private struct NodeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) { node.member(key.stringValue).content = .scalar(.null) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try node.member(key.stringValue).store(value, codingPath: codingPath + [key])
    }

    // The scalar types directly: a message's `encode(to:)` reaches these through an existential container, where
    // the generic entry point would cast its value at run time.
    func encode(_ value: String, forKey key: Key) { node.member(key.stringValue).content = .scalar(.string(value)) }
    func encode(_ value: Bool, forKey key: Key) { node.member(key.stringValue).content = .scalar(.bool(value)) }
    func encode(_ value: Int, forKey key: Key) { integer(value, key) }
    func encode(_ value: Int64, forKey key: Key) { integer(value, key) }
    func encode(_ value: UInt64, forKey key: Key) { integer(value, key) }
    func encode(_ value: UInt32, forKey key: Key) { integer(value, key) }

    private func integer(_ value: some FixedWidthInteger, _ key: Key) {
        node.member(key.stringValue).content = .scalar(.number(String(value)))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superEncoder() -> any Encoder {
        NodeEncoder(node: node.member("super"), codingPath: codingPath + [TreeKey(stringValue: "super")])
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct NodeUnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    var count: Int {
        if case .array(let elements) = node.content { return elements.count }
        return 0
    }

    private func next() -> (EncodedNode, [any CodingKey]) {
        let path = codingPath + [TreeKey(index: count)]
        return (node.append(), path)
    }

    mutating func encodeNil() { next().0.content = .scalar(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let (element, path) = next()
        try element.store(value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let (element, path) = next()
        return NodeEncoder(node: element, codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (element, path) = next()
        return NodeEncoder(node: element, codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let (element, path) = next()
        return NodeEncoder(node: element, codingPath: path)
    }
}
