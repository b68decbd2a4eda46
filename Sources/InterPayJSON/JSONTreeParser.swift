extension JSONTree {
    /// The default bound on the nesting of objects and arrays.
    public static let defaultMaximumDepth = 64

    /// Parses a whole document (RFC 8259, no extensions): one value, surrounded only by whitespace.
    ///
    /// Strings must be valid UTF-8 without raw control characters, surrogate escapes must pair up, and numbers
    /// follow the JSON grammar (their text is kept, so `1e400` or `0.9013` lose nothing). Nesting deeper than
    /// `maximumDepth` is refused, so a hostile document cannot exhaust the stack; callers bound the input's size.
    public static func parse(
        _ bytes: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth,
        duplicateMembers: DuplicateMembers = .refuse
    ) throws(JSONSyntaxError) -> JSONTree {
        var parser = JSONTreeParser(Array(bytes), maximumDepth: maximumDepth, duplicateMembers: duplicateMembers)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected data after the value") }
        return value
    }
}

/// The recursive-descent parser behind `JSONTree.parse`.
private struct JSONTreeParser {
    let bytes: [UInt8]
    let maximumDepth: Int
    let duplicateMembers: JSONTree.DuplicateMembers
    var index = 0

    init(_ bytes: [UInt8], maximumDepth: Int, duplicateMembers: JSONTree.DuplicateMembers) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.duplicateMembers = duplicateMembers
    }

    // MARK: Values

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONTree {
        guard let byte = peek() else { throw failure("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw failure("unexpected character \(Self.describe(byte)), expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONTree {
        var members: [JSONTree.Member] = []
        // Names are compared as UTF-8 bytes, i.e. code point by code point (String equality would merge canonically
        // equivalent names): by a linear search while the object is small, as most are, then through a set.
        var names: Set<[UInt8]>?
        guard try enterContainer(depth: depth, closedBy: UInt8(ascii: "}")) else { return .object(members) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
            let nameStart = index
            let key = try parseString()
            if duplicateMembers == .refuse, Self.isDuplicate(key, among: members, names: &names) {
                throw JSONSyntaxError(
                    offset: nameStart, reason: "duplicate member name '\(key.prefix(40))'", duplicateName: key)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after a member name")
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(JSONTree.Member(key: key, value: value))
            if try closes(UInt8(ascii: "}"), "an object") { return .object(members) }
        }
    }

    /// Whether `key` names a member already in `members`; `names` is the set of those names once there are many.
    private static func isDuplicate(_ key: String, among members: [JSONTree.Member], names: inout Set<[UInt8]>?) -> Bool
    {
        if names == nil, members.count < 16 {
            return members.contains { $0.key.utf8.elementsEqual(key.utf8) }
        }
        if names == nil { names = Set(members.map { Array($0.key.utf8) }) }
        return names?.insert(Array(key.utf8)).inserted == false
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONTree {
        var elements: [JSONTree] = []
        guard try enterContainer(depth: depth, closedBy: UInt8(ascii: "]")) else { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            if try closes(UInt8(ascii: "]"), "an array") { return .array(elements) }
        }
    }

    /// Steps into the object or array, `depth` levels deep, whose `{` or `[` is at `index`, and out of it again over
    /// `closing` when it is empty: true when members or elements follow, false for an empty one.
    private mutating func enterContainer(depth: Int, closedBy closing: UInt8) throws(JSONSyntaxError) -> Bool {
        guard depth <= maximumDepth else { throw failure("nested deeper than \(maximumDepth) levels") }
        index += 1
        skipWhitespace()
        guard peek() == closing else { return true }
        index += 1
        return false
    }

    /// Reads what follows a member or element of `container` ("an object", "an array"): `,` (false: another one
    /// comes) or `closing` (true: the container ends here).
    private mutating func closes(_ closing: UInt8, _ container: String) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard let byte = peek() else { throw failure("unexpected end of input inside \(container)") }
        index += 1
        if byte == closing { return true }
        guard byte == UInt8(ascii: ",") else {
            index -= 1
            throw failure(
                "expected ',' or '\(Character(Unicode.Scalar(closing)))' in \(container), found \(Self.describe(byte))")
        }
        return false
    }

    /// A number's text, checked against the JSON grammar `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw failure("expected a digit") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), Self.isDigit(digit) else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), Self.isDigit(digit) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A string's decoded text; the index is on its opening quote.
    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // "
        // Most strings are printable ASCII without escapes: taken as they are, in one piece.
        let start = index
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x80, bytes[index] != UInt8(ascii: "\\"),
            bytes[index] != UInt8(ascii: "\"")
        {
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
        }
        // Anything else, scalar by scalar from the start.
        index = start
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                index += 1
                scalars.append(try parseEscape())
            case 0..<0x20:
                throw failure("control character \(Self.describe(byte)) in a string")
            case 0..<0x80:
                scalars.append(Unicode.Scalar(byte))
                index += 1
            default:
                scalars.append(try parseUTF8Scalar())
            }
        }
    }

    /// The character of an escape sequence; the index is just after the backslash.
    private mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard let byte = peek() else { throw failure("unterminated escape sequence") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek() == UInt8(ascii: "\\"), peek(offset: 1) == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate \\u\(String(first, radix: 16))")
                }
                index += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw failure("unpaired surrogate \\u\(String(first, radix: 16))")
                }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw failure("invalid surrogate pair") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else {
                throw failure("unpaired surrogate \\u\(String(first, radix: 16))")
            }
            return scalar
        default:
            index -= 1
            throw failure("invalid escape \\\(Self.describe(byte))")
        }
    }

    /// Four hex digits of a `\u` escape.
    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw failure("unterminated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("expected a hex digit in a \\u escape, found \(Self.describe(byte))")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// One multi-byte UTF-8 sequence, validated (no overlong forms, no surrogates, nothing above U+10FFFF).
    private mutating func parseUTF8Scalar() throws(JSONSyntaxError) -> Unicode.Scalar {
        let start = index
        var iterator = bytes[start...].makeIterator()
        var decoder = UTF8()
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar):
            index += UTF8.width(scalar)
            return scalar
        case .emptyInput, .error:
            throw failure("invalid UTF-8 in a string")
        }
    }

    // MARK: Helpers

    private func peek(offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r")
        {
            index += 1
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw failure(message) }
        index += 1
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONSyntaxError) {
        for byte in literal.utf8 {
            guard peek() == byte else { throw failure("invalid literal, expected '\(literal)'") }
            index += 1
        }
    }

    func failure(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, reason: reason)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// A byte for a message: the character when printable ASCII, else its hex value.
    private static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16))"
    }
}
