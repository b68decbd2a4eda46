import Glibc

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
        let root = EncodedNode(parent: nil, key: .none)
        try root.store(value)
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try root.write(into: &output)
        return output
    }

    /// Appends `string` as a canonical JSON string: quoted, with only `"`, `\` and U+0000–U+001F escaped.
    public static func appendString(_ string: String, to output: inout [UInt8]) {
        EncodedNode.writeString(string, into: &output)
    }

    /// Whether the member name `a` comes before `b` in canonical JSON: Unicode code point order, which for valid
    /// Unicode text is UTF-8 byte order (not `String`'s `<`, which compares the canonical equivalents).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { left in
            b.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
                    let order = memcmp(leftBase, rightBase, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
    }

    /// `value` as the tree its canonical JSON would parse to (members sorted as written), without writing the text
    /// and reading it back: for a caller that holds JSON as a tree (the control socket's events).
    public func tree(_ value: some Encodable) throws -> JSONTree {
        let root = EncodedNode(parent: nil, key: .none)
        try root.store(value)
        return try root.tree()
    }
}

/// One value being encoded: filled by a container, written once the whole value is encoded.
///
/// A node knows its parent and its key there, so that the coding path an error or a value's `encode(to:)` asks for
/// is read from the nodes when asked, and the encoders and containers handed out are one reference each (small
/// enough for an existential's inline buffer: no allocation per member for a container or a path).
private final class EncodedNode {
    enum Content {
        case unset
        case object([(key: String, node: EncodedNode)])
        case array([EncodedNode])
        case scalar(JSONTree)
    }

    /// Where a node sits in its parent.
    enum Key {
        case none
        case name(String)
        case index(Int)
    }

    var content = Content.unset
    /// The node whose member or element this is. It owns this node, and every node lives only while its root is
    /// being encoded (no node leaves `CanonicalJSONEncoder`), so the reference neither keeps it nor counts:
    /// `unowned(unsafe)`, whose checked form (`unowned`) cost a tenth of an encoding in reference counting.
    unowned(unsafe) let parent: EncodedNode?
    let key: Key

    init(parent: EncodedNode?, key: Key) {
        self.parent = parent
        self.key = key
    }

    /// The keys from the root to this node.
    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: EncodedNode? = self
        while let current = node {
            switch current.key {
            case .none: break
            case .name(let name): keys.append(TreeKey(stringValue: name))
            case .index(let index): keys.append(TreeKey(index: index))
            }
            node = current.parent
        }
        return keys.reversed()
    }

    /// Encodes `value` into this node, the common scalar types without a round through `encode(to:)`.
    ///
    /// The scalar types are told apart by comparing metatypes, not by `as?` casts: a cast that fails, made for every
    /// member of every value, cost more than the rest of the encoding.
    func store<T: Encodable>(_ value: T) throws {
        if T.self == String.self {
            content = .scalar(.string(unsafeBitCast(value, to: String.self)))
        } else if T.self == Int64.self {
            content = .scalar(.number(String(unsafeBitCast(value, to: Int64.self))))
        } else if T.self == Int.self {
            content = .scalar(.number(String(unsafeBitCast(value, to: Int.self))))
        } else if T.self == UInt64.self {
            content = .scalar(.number(String(unsafeBitCast(value, to: UInt64.self))))
        } else if T.self == Bool.self {
            content = .scalar(.bool(unsafeBitCast(value, to: Bool.self)))
        } else {
            try value.encode(to: NodeEncoder(node: self))
        }
    }

    /// A new member `key` of this object (made an object if it was not one yet). A key encoded twice keeps the last
    /// value, as `JSONEncoder` does: the earlier one is dropped when the members are sorted (`sortedMembers`), not
    /// searched for at each member.
    func member(_ key: String) -> EncodedNode {
        var members: [(key: String, node: EncodedNode)] = []
        if case .object(let existing) = content { members = existing }
        content = .unset  // `members` is then the only reference, appended to in place
        let node = EncodedNode(parent: self, key: .name(key))
        members.append((key, node))
        content = .object(members)
        return node
    }

    /// `members` in code point order of their keys, each key once: the last value encoded for it.
    static func sortedMembers(
        _ members: [(key: String, node: EncodedNode)]
    ) -> [(key: String, node: EncodedNode)] {
        // Each key's first eight UTF-8 bytes as a big-endian number (zero-padded) order most keys with one integer
        // comparison; equal prefixes fall back to the whole keys, then to the position, so that of equal keys the
        // last encoded comes last and is kept.
        struct Entry {
            var prefix: UInt64
            var index: Int
        }
        var order = members.indices.map { index in
            var key = members[index].key
            let prefix = key.withUTF8 { bytes in
                var prefix: UInt64 = 0
                for position in 0..<8 { prefix = prefix << 8 | UInt64(position < bytes.count ? bytes[position] : 0) }
                return prefix
            }
            return Entry(prefix: prefix, index: index)
        }
        order.sort { left, right in
            if left.prefix != right.prefix { return left.prefix < right.prefix }
            let (a, b) = (members[left.index].key, members[right.index].key)
            if CanonicalJSONEncoder.precedes(a, b) { return true }
            if CanonicalJSONEncoder.precedes(b, a) { return false }
            return left.index < right.index
        }
        var sorted: [(key: String, node: EncodedNode)] = []
        sorted.reserveCapacity(order.count)
        for index in order.lazy.map(\.index) {
            // Sorted, so a key equal to the last one's is not after it. (Equal as bytes: `String`'s `==` would also
            // take two canonically equivalent names for one.)
            if let last = sorted.last, !CanonicalJSONEncoder.precedes(last.key, members[index].key) {
                sorted[sorted.count - 1] = members[index]
            } else {
                sorted.append(members[index])
            }
        }
        return sorted
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    /// A new element at the end of this array.
    func append() -> EncodedNode {
        var elements: [EncodedNode] = []
        if case .array(let existing) = content { elements = existing }
        content = .unset  // `elements` is then the only reference, appended to in place
        let node = EncodedNode(parent: self, key: .index(elements.count))
        elements.append(node)
        content = .array(elements)
        return node
    }

    /// The number of elements of this array.
    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }

    func tree() throws -> JSONTree {
        switch content {
        case .unset:
            throw EncodingError.invalidValue(
                self, .init(codingPath: codingPath, debugDescription: "A value encoded nothing."))
        case .object(let members):
            return .object(try Self.sortedMembers(members).map { .init(key: $0.key, value: try $0.node.tree()) })
        case .array(let elements):
            return .array(try elements.map { try $0.tree() })
        case .scalar(let value):
            return value
        }
    }

    func write(into output: inout [UInt8]) throws {
        switch content {
        case .unset:
            throw EncodingError.invalidValue(
                self, .init(codingPath: codingPath, debugDescription: "A value encoded nothing."))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in Self.sortedMembers(members).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                try member.node.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try element.write(into: &output)
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
        var string = string
        string.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole.
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                appendEscape(of: byte, to: &output)
                start = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        default:
            output.append(contentsOf: [
                UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)],
                hexDigits[Int(byte & 0xF)],
            ])
        }
    }
}

/// The `Encoder` handed to a value's `encode(to:)`: its containers write into one node.
private struct NodeEncoder: Encoder {
    let node: EncodedNode
    var codingPath: [any CodingKey] { node.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(NodeKeyedContainer<Key>(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return NodeUnkeyedContainer(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}

extension NodeEncoder: SingleValueEncodingContainer {
    func encodeNil() { node.content = .scalar(.null) }
    func encode(_ value: Bool) { node.content = .scalar(.bool(value)) }
    func encode(_ value: String) { node.content = .scalar(.string(value)) }
    func encode(_ value: Double) throws { node.content = .scalar(.number(try Self.text(of: value, node))) }
    func encode(_ value: Float) throws { node.content = .scalar(.number(try Self.text(of: Double(value), node))) }
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
    func encode<T: Encodable>(_ value: T) throws { try node.store(value) }

    private func integer(_ value: some FixedWidthInteger) { node.content = .scalar(.number(String(value))) }

    /// A double as JSON: integral values without a fraction (as Python and `JSONEncoder` write them), others in
    /// Swift's shortest form that reads back to the same value.
    static func text(of value: Double, _ node: EncodedNode) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: node.codingPath, debugDescription: "\(value) is not a JSON number."))
        }
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }
}

private struct NodeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    var codingPath: [any CodingKey] { node.codingPath }

    func encodeNil(forKey key: Key) { node.member(key.stringValue).content = .scalar(.null) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try node.member(key.stringValue).store(value)
    }

    // The scalar types directly: a message's `encode(to:)` reaches these through an existential container, where
    // the generic entry point would compare its value's type at run time.
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
        NodeEncoder(node: node.member(key.stringValue)).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue)).unkeyedContainer()
    }

    func superEncoder() -> any Encoder {
        NodeEncoder(node: node.member("super"))
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue))
    }
}

private struct NodeUnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodedNode
    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int { node.count }

    mutating func encodeNil() { node.append().content = .scalar(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try node.append().store(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.append()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.append()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.append())
    }
}
