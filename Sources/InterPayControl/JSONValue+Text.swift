// JSON text: a strict RFC 8259 parser and a compact writer, so that integers never pass through `Double`.

extension JSONValue {
    /// The deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 256

    /// Parses one JSON value from UTF-8 bytes (surrounding whitespace allowed, nothing else after the value).
    public init(parsing bytes: some Sequence<UInt8>) throws(JSONParseError) {
        let array = Array(bytes)
        var parser = JSONParser(bytes: array)
        self = try parser.parseDocument()
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
            Self.writeString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &output)
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

    private static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// A recursive-descent parser over a byte array (RFC 8259, no extensions).
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw JSONParseError("unexpected data after the value", offset: index) }
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let byte = peek() else { throw JSONParseError("unexpected end of input", offset: index) }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw JSONParseError("unexpected character '\(Self.printable(byte))'", offset: index)
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        let start = index
        for expected in literal.utf8 {
            guard peek() == expected else { throw JSONParseError("invalid literal", offset: start) }
            index += 1
        }
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONValue.maximumDepth else {
            throw JSONParseError("nesting deeper than \(JSONValue.maximumDepth)", offset: index)
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw JSONParseError("expected a member name", offset: index) }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw JSONParseError("expected ':'", offset: index) }
            index += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            case nil:
                throw JSONParseError("unterminated object", offset: index)
            default:
                throw JSONParseError("expected ',' or '}'", offset: index)
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            case nil:
                throw JSONParseError("unterminated array", offset: index)
            default:
                throw JSONParseError("expected ',' or ']'", offset: index)
            }
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let start = index
        index += 1  // opening quote
        var scalars: [UInt8] = []
        while true {
            guard let byte = peek() else { throw JSONParseError("unterminated string", offset: start) }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: scalars, as: UTF8.self) else {
                    throw JSONParseError("string is not valid UTF-8", offset: start)
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &scalars)
            case 0x00..<0x20:
                throw JSONParseError("unescaped control character in string", offset: index)
            default:
                scalars.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        guard let byte = peek() else { throw JSONParseError("unterminated escape", offset: index) }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let start = index - 2
            var code = UInt32(try parseHex4())
            if (0xD800..<0xDC00).contains(code) {
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONParseError("unpaired surrogate in \\u escape", offset: start) }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00..<0xE000).contains(low) else {
                    throw JSONParseError("unpaired surrogate in \\u escape", offset: start)
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else {
                throw JSONParseError("unpaired surrogate in \\u escape", offset: start)
            }
            output.append(contentsOf: String(scalar).utf8)
        default:
            throw JSONParseError("invalid escape '\\\(Self.printable(byte))'", offset: index - 2)
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw JSONParseError("truncated \\u escape", offset: index) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError("invalid hex digit in \\u escape", offset: index)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw JSONParseError("invalid number", offset: start) }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek(), Self.isDigit(next) {
            throw JSONParseError("leading zero in number", offset: start)
        }
        skipDigits()
        var integral = true
        if peek() == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard let digit = peek(), Self.isDigit(digit) else {
                throw JSONParseError("expected a digit after '.'", offset: index)
            }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            integral = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), Self.isDigit(digit) else {
                throw JSONParseError("expected a digit in the exponent", offset: index)
            }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError("number out of range", offset: start)
        }
        return .double(value)
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func printable(_ byte: UInt8) -> String {
        guard !(0x21..<0x7F).contains(byte) else { return String(UnicodeScalar(byte)) }
        let hex = Array("0123456789ABCDEF".utf8)
        return "0x" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]], as: UTF8.self)
    }
}
