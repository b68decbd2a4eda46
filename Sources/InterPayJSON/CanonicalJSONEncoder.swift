import Glibc

/// Encodes `Encodable` values as canonical JSON (`protocol/PROTOCOL.md` §5): compact, object members sorted by name
/// in Unicode code point order, recursively; non-ASCII characters as raw UTF-8; in strings only `"`, `\` and
/// U+0000–U+001F escaped (`\b`, `\t`, `\n`, `\f`, `\r`, else `\u00xx` in lower-case hex). The same bytes as Python's
/// `json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
///
/// Written here rather than configured from `JSONEncoder` because the form is the protocol's, not Foundation's (whose
/// sorted-keys order is case-insensitive, which only coincides for ASCII names), and because frames are encoded on
/// every step of the payment path, and answers on every control call, where `JSONEncoder`'s generality cost several
/// times the rest of the encoding.
///
/// How: a value's members cannot be written as they come (they must be sorted, and Codable says when a container
/// starts but not when it ends), so the value is first recorded as a flat list of nodes, each scalar's text already
/// written to one buffer, and then written out once, each object's members sorted. No node is an object of its own
/// and no scalar a string of its own: an encoding allocates a few buffers, not a few per member.
public struct CanonicalJSONEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// The canonical JSON of `value`.
    public func encode(_ value: some Encodable) throws -> [UInt8] {
        let document = EncodedDocument()
        try document.store(value, at: EncodedDocument.root)
        let state = document.state
        var output: [UInt8] = []
        output.reserveCapacity(state.text.count + 16 * state.nodes.count)
        try state.write(EncodedDocument.root, into: &output)
        return output
    }

    /// `value` as the tree its canonical JSON parses to (members sorted as written): for a caller that holds JSON as
    /// a tree (the control socket's events).
    public func tree(_ value: some Encodable) throws -> JSONTree {
        try JSONTree.parse(encode(value), maximumDepth: Int.max)
    }

    /// Appends `string` as a canonical JSON string: quoted, with only `"`, `\` and U+0000–U+001F escaped.
    public static func appendString(_ string: String, to output: inout [UInt8]) {
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

    private static let hexDigits = Array("0123456789abcdef".utf8)

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
}

/// A value being encoded, shared by the encoder and the containers handed to the value: its nodes in the order they
/// were made (the root first), linked to their parents and siblings by position, and the text of its scalars
/// (`DocumentState`).
private final class EncodedDocument {
    /// The root's position.
    static let root = 0

    var state = DocumentState()

    /// Encodes `value` into the node at `index`, the common scalar types without a round through `encode(to:)`.
    ///
    /// The scalar types are told apart by comparing metatypes, not by `as?` casts: a cast that fails, made for every
    /// member of every value, cost more than the rest of the encoding.
    func store<T: Encodable>(_ value: T, at index: Int) throws {
        if T.self == String.self {
            state.setString(unsafeBitCast(value, to: String.self), at: index)
        } else if T.self == Int64.self {
            state.setInteger(unsafeBitCast(value, to: Int64.self), at: index)
        } else if T.self == Int.self {
            state.setInteger(unsafeBitCast(value, to: Int.self), at: index)
        } else if T.self == UInt64.self {
            state.setInteger(unsafeBitCast(value, to: UInt64.self), at: index)
        } else if T.self == Bool.self {
            state.setBool(unsafeBitCast(value, to: Bool.self), at: index)
        } else {
            try value.encode(to: DocumentEncoder(document: self, node: index))
        }
    }

    func makeObject(_ index: Int) { state.makeObject(index) }
    func makeArray(_ index: Int) { state.makeArray(index) }
    func member(_ name: String, of index: Int) -> Int { state.member(name, of: index) }
    func element(of index: Int) -> Int { state.element(of: index) }
    func setString(_ value: String, at index: Int) { state.setString(value, at: index) }
    func setInteger<T: FixedWidthInteger>(_ value: T, at index: Int) { state.setInteger(value, at: index) }
    func setBool(_ value: Bool, at index: Int) { state.setBool(value, at: index) }
    func setLiteral(_ literal: String, at index: Int) { state.setLiteral(literal, at: index) }
    func codingPath(_ index: Int) -> [any CodingKey] { state.codingPath(index) }
    func children(of index: Int) -> Int { state.nodes[index].children }
}

/// What `EncodedDocument` records, as a value: each change is one access to the document's state, not one per
/// field it touches (a class's stored properties are checked for exclusive access at each).
private struct DocumentState {
    /// One value: an object, an array, a scalar, or nothing yet. Plain integers only, so that the nodes are copied
    /// and moved as bytes.
    struct Node {
        enum Kind {
            case unset, object, array, scalar
        }

        var kind = Kind.unset
        /// A member's name (its position in `names`), an element's position in its array, or -1 for the root.
        let key: Int
        /// A member's name's first eight UTF-8 bytes, big-endian and zero-padded: most names compare by this alone.
        let prefix: UInt64
        /// The parent's position; -1 for the root.
        let parent: Int
        var firstChild = -1
        var lastChild = -1
        var nextSibling = -1
        var children = 0
        /// A scalar's text: `text[start..<end]`.
        var start = 0
        var end = 0

        init(key: Int, prefix: UInt64 = 0, parent: Int) {
            self.key = key
            self.prefix = prefix
            self.parent = parent
        }
    }

    var nodes: [Node]
    /// The members' names, in the order they came.
    var names: [String] = []
    /// The scalars' text, one after the other.
    var text: [UInt8] = []

    init() {
        nodes = [Node(key: -1, parent: -1)]
        names.reserveCapacity(32)
        nodes.reserveCapacity(32)
        text.reserveCapacity(256)
    }

    // MARK: Recording

    /// Makes the node at `index` an object, unless it is one already.
    mutating func makeObject(_ index: Int) {
        if nodes[index].kind != .object { become(.object, index) }
    }

    /// Makes the node at `index` an array, unless it is one already.
    mutating func makeArray(_ index: Int) {
        if nodes[index].kind != .array { become(.array, index) }
    }

    private mutating func become(_ kind: Node.Kind, _ index: Int) {
        nodes[index].kind = kind
        nodes[index].firstChild = -1
        nodes[index].lastChild = -1
        nodes[index].children = 0
    }

    /// A new member `name` of the object at `index`. A name encoded twice keeps its last value, as `JSONEncoder`
    /// does: the earlier one is dropped when the members are sorted, not searched for at each member.
    mutating func member(_ name: String, of index: Int) -> Int {
        makeObject(index)
        var name = name
        let prefix = name.withUTF8 { bytes in
            var prefix: UInt64 = 0
            for position in 0..<8 { prefix = prefix << 8 | UInt64(position < bytes.count ? bytes[position] : 0) }
            return prefix
        }
        names.append(name)
        return append(Node(key: names.count - 1, prefix: prefix, parent: index), to: index)
    }

    /// A new element at the end of the array at `index`.
    mutating func element(of index: Int) -> Int {
        makeArray(index)
        return append(Node(key: nodes[index].children, parent: index), to: index)
    }

    private mutating func append(_ node: Node, to parent: Int) -> Int {
        let child = nodes.count
        nodes.append(node)
        let last = nodes[parent].lastChild
        if last >= 0 { nodes[last].nextSibling = child } else { nodes[parent].firstChild = child }
        nodes[parent].lastChild = child
        nodes[parent].children += 1
        return child
    }

    mutating func setString(_ value: String, at index: Int) {
        let start = text.count
        CanonicalJSONEncoder.appendString(value, to: &text)
        setScalar(index, from: start)
    }

    mutating func setInteger<T: FixedWidthInteger>(_ value: T, at index: Int) {
        let start = text.count
        if value < 0 { text.append(UInt8(ascii: "-")) }
        let digits = text.count
        var magnitude = value.magnitude
        repeat {
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
            text.append(UInt8(ascii: "0") + UInt8(remainder))
            magnitude = quotient
        } while magnitude > 0
        text[digits...].reverse()
        setScalar(index, from: start)
    }

    mutating func setBool(_ value: Bool, at index: Int) {
        setLiteral(value ? "true" : "false", at: index)
    }

    mutating func setLiteral(_ literal: String, at index: Int) {
        let start = text.count
        text.append(contentsOf: literal.utf8)
        setScalar(index, from: start)
    }

    private mutating func setScalar(_ index: Int, from start: Int) {
        nodes[index].kind = .scalar
        nodes[index].start = start
        nodes[index].end = text.count
    }

    /// The keys from the root to the node at `index`.
    func codingPath(_ index: Int) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = index
        while current >= 0 {
            let node = nodes[current]
            if node.parent >= 0 {
                switch nodes[node.parent].kind {
                case .object: keys.append(TreeKey(stringValue: names[node.key]))
                default: keys.append(TreeKey(index: node.key))
                }
            }
            current = node.parent
        }
        return keys.reversed()
    }

    // MARK: Writing

    /// Writes the node at `index` and everything under it.
    func write(_ index: Int, into output: inout [UInt8]) throws {
        switch nodes[index].kind {
        case .unset:
            throw EncodingError.invalidValue(
                index, .init(codingPath: codingPath(index), debugDescription: "A value encoded nothing."))
        case .scalar:
            output.append(contentsOf: text[nodes[index].start..<nodes[index].end])
        case .array:
            output.append(UInt8(ascii: "["))
            var child = nodes[index].firstChild
            while child >= 0 {
                if child != nodes[index].firstChild { output.append(UInt8(ascii: ",")) }
                try write(child, into: &output)
                child = nodes[child].nextSibling
            }
            output.append(UInt8(ascii: "]"))
        case .object:
            output.append(UInt8(ascii: "{"))
            for (position, member) in sortedMembers(of: index).enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                CanonicalJSONEncoder.appendString(name(of: member), to: &output)
                output.append(UInt8(ascii: ":"))
                try write(member, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The name of the member at `index`.
    private func name(of index: Int) -> String { names[nodes[index].key] }

    /// The members of the object at `index` in code point order of their names, each name once: the last value
    /// encoded for it.
    private func sortedMembers(of index: Int) -> [Int] {
        // Names compare by their first eight bytes (`Node.prefix`), then as a whole, then by the order they came
        // in, so that of equal names the last encoded comes last and is kept.
        struct Entry {
            var prefix: UInt64
            var node: Int
        }
        var entries: [Entry] = []
        entries.reserveCapacity(nodes[index].children)
        var child = nodes[index].firstChild
        while child >= 0 {
            entries.append(Entry(prefix: nodes[child].prefix, node: child))
            child = nodes[child].nextSibling
        }
        // Nodes are made in order, so a later member has a larger position.
        entries.sort { left, right in
            if left.prefix != right.prefix { return left.prefix < right.prefix }
            let (a, b) = (name(of: left.node), name(of: right.node))
            if CanonicalJSONEncoder.precedes(a, b) { return true }
            if CanonicalJSONEncoder.precedes(b, a) { return false }
            return left.node < right.node
        }
        var sorted: [Int] = []
        sorted.reserveCapacity(entries.count)
        for entry in entries {
            // Sorted, so a name equal to the last one's is not after it. (Equal as bytes: `String`'s `==` would also
            // take two canonically equivalent names for one.)
            if let last = sorted.last, !CanonicalJSONEncoder.precedes(name(of: last), name(of: entry.node)) {
                sorted[sorted.count - 1] = entry.node
            } else {
                sorted.append(entry.node)
            }
        }
        return sorted
    }
}

/// The `Encoder` handed to a value's `encode(to:)`, and its single-value container: one node of the document (a
/// reference and a position, small enough for an existential's inline buffer).
private struct DocumentEncoder: Encoder, SingleValueEncodingContainer {
    let document: EncodedDocument
    let node: Int
    var codingPath: [any CodingKey] { document.codingPath(node) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        document.makeObject(node)
        return KeyedEncodingContainer(DocumentKeyedContainer<Key>(document: document, node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        document.makeArray(node)
        return DocumentUnkeyedContainer(document: document, node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() { document.setLiteral("null", at: node) }
    func encode(_ value: Bool) { document.setBool(value, at: node) }
    func encode(_ value: String) { document.setString(value, at: node) }
    func encode(_ value: Double) throws { try document.setDouble(value, at: node) }
    func encode(_ value: Float) throws { try document.setDouble(Double(value), at: node) }
    func encode(_ value: Int) { document.setInteger(value, at: node) }
    func encode(_ value: Int8) { document.setInteger(value, at: node) }
    func encode(_ value: Int16) { document.setInteger(value, at: node) }
    func encode(_ value: Int32) { document.setInteger(value, at: node) }
    func encode(_ value: Int64) { document.setInteger(value, at: node) }
    func encode(_ value: UInt) { document.setInteger(value, at: node) }
    func encode(_ value: UInt8) { document.setInteger(value, at: node) }
    func encode(_ value: UInt16) { document.setInteger(value, at: node) }
    func encode(_ value: UInt32) { document.setInteger(value, at: node) }
    func encode(_ value: UInt64) { document.setInteger(value, at: node) }
    func encode<T: Encodable>(_ value: T) throws { try document.store(value, at: node) }
}

extension EncodedDocument {
    /// A double as JSON: integral values without a fraction (as Python and `JSONEncoder` write them), others in
    /// Swift's shortest form that reads back to the same value.
    func setDouble(_ value: Double, at index: Int) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath(index), debugDescription: "\(value) is not a JSON number."))
        }
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            setInteger(Int64(value), at: index)
        } else {
            setLiteral("\(value)", at: index)
        }
    }
}

private struct DocumentKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let document: EncodedDocument
    let node: Int
    var codingPath: [any CodingKey] { document.codingPath(node) }

    private func member(_ key: Key) -> Int { document.member(key.stringValue, of: node) }

    func encodeNil(forKey key: Key) { document.setLiteral("null", at: member(key)) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try document.store(value, at: member(key))
    }

    // The scalar types directly: a message's `encode(to:)` reaches these through an existential container, where
    // the generic entry point would compare its value's type at run time.
    func encode(_ value: String, forKey key: Key) { document.setString(value, at: member(key)) }
    func encode(_ value: Bool, forKey key: Key) { document.setBool(value, at: member(key)) }
    func encode(_ value: Int, forKey key: Key) { document.setInteger(value, at: member(key)) }
    func encode(_ value: Int64, forKey key: Key) { document.setInteger(value, at: member(key)) }
    func encode(_ value: UInt64, forKey key: Key) { document.setInteger(value, at: member(key)) }
    func encode(_ value: UInt32, forKey key: Key) { document.setInteger(value, at: member(key)) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        DocumentEncoder(document: document, node: member(key)).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DocumentEncoder(document: document, node: member(key)).unkeyedContainer()
    }

    func superEncoder() -> any Encoder {
        DocumentEncoder(document: document, node: document.member("super", of: node))
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        DocumentEncoder(document: document, node: member(key))
    }
}

private struct DocumentUnkeyedContainer: UnkeyedEncodingContainer {
    let document: EncodedDocument
    let node: Int
    var codingPath: [any CodingKey] { document.codingPath(node) }
    var count: Int { document.children(of: node) }

    mutating func encodeNil() { document.setLiteral("null", at: document.element(of: node)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try document.store(value, at: document.element(of: node))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        DocumentEncoder(document: document, node: document.element(of: node)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        DocumentEncoder(document: document, node: document.element(of: node)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        DocumentEncoder(document: document, node: document.element(of: node))
    }
}
