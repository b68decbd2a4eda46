/// Decodes `Decodable` values from a `JSONTree`: the strict reader's tree, so that a document is parsed once (with its
/// duplicate members refused while parsing) and then decoded, instead of parsed a second time by another reader.
///
/// Errors are `DecodingError`s with the coding path of the offending value, as `JSONDecoder` reports them:
/// `keyNotFound`, `valueNotFound` (a `null` where a value is required), `typeMismatch` and `dataCorrupted` (a number
/// that is not an integer, or does not fit, where an integer is required).
///
/// Integers are read from the number's text: `12` and `1.2e1` decode as 12 (as `JSONDecoder` reads them), `12.5`,
/// `1e400` or `-1` into an unsigned type do not decode at all.
public struct JSONTreeDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// Decodes a `T` from `tree`.
    public func decode<T: Decodable>(_ type: T.Type, from tree: JSONTree) throws -> T {
        try TreeDecoder(tree, codingPath: []).decodeValue(type)
    }
}

/// The `Decoder` for one value of the tree.
private struct TreeDecoder: Decoder {
    let value: JSONTree
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONTree, codingPath: [any CodingKey]) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: JSONTree].self)
        }
        return KeyedDecodingContainer(TreeKeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONTree].self) }
        return TreeUnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ type: Any.Type) -> DecodingError {
        if case .null = value {
            return .valueNotFound(
                type, .init(codingPath: codingPath, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(
            type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kind).")
        )
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // The common scalar types directly, without a round through `init(from:)` and a container.
        if type == String.self, let string = try decode(String.self) as? T { return string }
        if type == Int64.self, let integer = try decode(Int64.self) as? T { return integer }
        if type == Int.self, let integer = try decode(Int.self) as? T { return integer }
        if type == UInt64.self, let integer = try decode(UInt64.self) as? T { return integer }
        if type == Bool.self, let bool = try decode(Bool.self) as? T { return bool }
        return try T(from: self)
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value else { throw mismatch(type) }
        if let exact = T(text, radix: 10) { return exact }
        // Not plain integer text: `1.2e1` is an integer written otherwise (as `JSONDecoder` reads it); anything
        // else is not one, or not one this type holds.
        if let double = Double(text), double.isFinite, double.rounded() == double,
            double >= Double(T.min), double < Double(T.max), let exact = T(exactly: double)
        {
            return exact
        }
        throw DecodingError.dataCorrupted(
            .init(codingPath: codingPath, debugDescription: "Number \(text) is not representable in \(type)."))
    }
}

extension TreeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(type) }
        return bool
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value else { throw mismatch(type) }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let text) = value else { throw mismatch(type) }
        guard let double = Double(text), double.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "Number \(text) is not representable in \(type)."))
        }
        return double
    }

    func decode(_ type: Float.Type) throws -> Float {
        let double = try decode(Double.self)
        guard abs(double) <= Double(Float.greatestFiniteMagnitude) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "Number \(double) does not fit in \(type)."))
        }
        return Float(double)
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// An object's members, looked up by name (frames have a handful, so a linear search beats building a dictionary).
private struct TreeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONTree.Member]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    private func member(_ key: Key) -> JSONTree? {
        let name = key.stringValue
        return members.first { $0.key == name }?.value
    }

    private func decoder(for key: Key) throws -> TreeDecoder {
        guard let value = member(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue).")
            )
        }
        return TreeDecoder(value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).decodeNil() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key).decodeValue(type)
    }

    // The scalar types directly: a message's `init(from:)` reaches these through an existential container, where
    // the generic entry point would compare types at run time.
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).decode(type) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(for: key).decode(type) }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = member(key) else { return nil }
        if case .null = value { return nil }
        return try TreeDecoder(value, codingPath: codingPath + [key]).decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = member(key) else { return nil }
        if case .null = value { return nil }
        return try TreeDecoder(value, codingPath: codingPath + [key]).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        // `super` is the member name Swift's own coders use for a superclass's encoding.
        TreeDecoder(
            members.first { $0.key == "super" }?.value ?? .null,
            codingPath: codingPath + [TreeKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(member(key) ?? .null, codingPath: codingPath + [key])
    }
}

/// An array's elements, in order.
private struct TreeUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONTree]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONTree], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> TreeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: codingPath + [TreeKey(index: currentIndex)],
                    debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return TreeDecoder(elements[currentIndex], codingPath: codingPath + [TreeKey(index: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: JSONTree].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONTree].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(JSONTree.self) }
}

/// A coding key for array positions and `super`.
struct TreeKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    init(index: Int) { self.init(intValue: index) }
}
