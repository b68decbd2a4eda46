/// The control socket a daemon's configuration file names (`socket` in its `[control]` table), read for the CLI.
///
/// The daemon reads its file with TOMLKit. The CLI does not link it: TOMLKit imports Foundation, which would bring
/// FoundationInternationalization and ICU (tens of megabytes, and their start-up) into a command run for every
/// `interpay peers`, to read one string. This reader walks the whole TOML grammar's structure (tables, dotted and
/// quoted keys, every string form, arrays and inline tables, comments) so that text inside strings and arrays
/// never passes for a table or a key, and decodes only the one value. A file it cannot follow is reported, never
/// guessed at. `ConfiguredSocketTests` holds it to TOMLKit's reading of the same files.
public enum ConfiguredSocket {
    /// What a configuration file says of the control socket.
    public enum Setting: Equatable, Sendable {
        /// `[control] socket` is set to this path.
        case path(String)
        /// The file does not set it.
        case unset
        /// The file could not be followed at this line (1-based): the daemon would refuse it too.
        case unreadable(line: Int, reason: String)
    }

    /// Reads `control.socket` from the text of a TOML file.
    public static func read(toml: String) -> Setting {
        var scanner = Scanner(bytes: Array(toml.utf8))
        do {
            return try scanner.socketSetting()
        } catch {
            return .unreadable(line: scanner.line, reason: error.reason)
        }
    }

    struct SyntaxError: Error {
        let reason: String
    }

    /// A forward-only reader over the file's bytes.
    struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// The current line, 1-based (for the error).
        var line = 1

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private func peek(_ offset: Int) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        private mutating func advance() {
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }

        private func starts(with text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return text.withUTF8Buffer { Array(bytes[index..<index + count]) == Array($0) }
        }

        /// Every statement of the file, keeping the last `control.socket` (TOML forbids a second one; the daemon
        /// refuses such a file).
        mutating func socketSetting() throws(SyntaxError) -> Setting {
            var table: [String] = []
            var found = Setting.unset
            while true {
                skipBlankLinesAndComments()
                guard let byte = current else { return found }
                if byte == UInt8(ascii: "[") {
                    table = try header()
                } else {
                    let key = table + (try dottedKey())
                    skipSpaces()
                    guard current == UInt8(ascii: "=") else { throw SyntaxError(reason: "expected '=' after a key") }
                    advance()
                    skipSpaces()
                    if key == ["control", "socket"] {
                        guard let text = try stringValue() else {
                            throw SyntaxError(reason: "control.socket must be a string")
                        }
                        found = .path(text)
                    } else if key == ["control"], current == UInt8(ascii: "{") {
                        throw SyntaxError(reason: "[control] given as an inline table; write it as a [control] table")
                    } else {
                        try skipValue()
                    }
                }
                try endOfStatement()
            }
        }

        /// `[a.b]` or `[[a.b]]`: the table the following keys belong to.
        private mutating func header() throws(SyntaxError) -> [String] {
            advance()
            let arrayOfTables = current == UInt8(ascii: "[")
            if arrayOfTables { advance() }
            skipSpaces()
            let key = try dottedKey()
            skipSpaces()
            for _ in 0..<(arrayOfTables ? 2 : 1) {
                guard current == UInt8(ascii: "]") else { throw SyntaxError(reason: "a table header is not closed") }
                advance()
            }
            // An array of tables holds many tables; none of them is `[control]`.
            return arrayOfTables ? ["[]"] + key : key
        }

        /// `a`, `"a b".c`, `'a'.b`: the parts of a key.
        private mutating func dottedKey() throws(SyntaxError) -> [String] {
            var parts: [String] = []
            while true {
                skipSpaces()
                switch current {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    guard let part = try stringValue() else { throw SyntaxError(reason: "expected a key") }
                    parts.append(part)
                default:
                    let start = index
                    while let byte = current, Self.isBareKeyByte(byte) { advance() }
                    guard index > start else { throw SyntaxError(reason: "expected a key") }
                    parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
                }
                skipSpaces()
                guard current == UInt8(ascii: ".") else { return parts }
                advance()
            }
        }

        private static func isBareKeyByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }

        /// A string in any of TOML's four forms, decoded; nil when the value here is not a string.
        private mutating func stringValue() throws(SyntaxError) -> String? {
            if starts(with: "\"\"\"") { return try multiLineBasicString() }
            if starts(with: "'''") { return try multiLineLiteralString() }
            if current == UInt8(ascii: "'") {
                advance()
                let start = index
                while let byte = current, byte != UInt8(ascii: "'") {
                    guard byte != UInt8(ascii: "\n") else { throw SyntaxError(reason: "a string is not closed") }
                    advance()
                }
                guard current != nil else { throw SyntaxError(reason: "a string is not closed") }
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                advance()
                return text
            }
            guard current == UInt8(ascii: "\"") else { return nil }
            advance()
            var text: [UInt8] = []
            while let byte = current, byte != UInt8(ascii: "\"") {
                guard byte != UInt8(ascii: "\n") else { throw SyntaxError(reason: "a string is not closed") }
                if byte == UInt8(ascii: "\\") {
                    try escape(into: &text)
                } else {
                    text.append(byte)
                    advance()
                }
            }
            guard current != nil else { throw SyntaxError(reason: "a string is not closed") }
            advance()
            return String(decoding: text, as: UTF8.self)
        }

        private mutating func multiLineBasicString() throws(SyntaxError) -> String {
            for _ in 0..<3 { advance() }
            if current == UInt8(ascii: "\n") { advance() }
            var text: [UInt8] = []
            while true {
                guard let byte = current else { throw SyntaxError(reason: "a multi-line string is not closed") }
                if starts(with: "\"\"\"") {
                    // Up to two quotes may end the content just before the closing three.
                    var quotes = 3
                    while peek(quotes) == UInt8(ascii: "\""), quotes < 5 { quotes += 1 }
                    text += Array(repeating: UInt8(ascii: "\""), count: quotes - 3)
                    for _ in 0..<quotes { advance() }
                    return String(decoding: text, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") {
                    if Self.isLineEndingBackslash(bytes, at: index) {
                        // A line-ending backslash trims the newline and the whitespace after it.
                        advance()
                        while let next = current, Self.isWhitespaceOrNewline(next) { advance() }
                    } else {
                        try escape(into: &text)
                    }
                } else {
                    text.append(byte)
                    advance()
                }
            }
        }

        private mutating func multiLineLiteralString() throws(SyntaxError) -> String {
            for _ in 0..<3 { advance() }
            if current == UInt8(ascii: "\n") { advance() }
            let start = index
            while !starts(with: "'''") {
                guard current != nil else { throw SyntaxError(reason: "a multi-line string is not closed") }
                advance()
            }
            var end = index
            var quotes = 3
            while peek(quotes) == UInt8(ascii: "'"), quotes < 5 { quotes += 1 }
            end += quotes - 3
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            for _ in 0..<quotes { advance() }
            return text
        }

        private static func isWhitespaceOrNewline(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r")
        }

        /// Whether the backslash at `position` is followed by nothing but whitespace up to the end of its line.
        private static func isLineEndingBackslash(_ bytes: [UInt8], at position: Int) -> Bool {
            var next = position + 1
            while next < bytes.count, bytes[next] == UInt8(ascii: " ") || bytes[next] == UInt8(ascii: "\t") {
                next += 1
            }
            return next < bytes.count && (bytes[next] == UInt8(ascii: "\n") || bytes[next] == UInt8(ascii: "\r"))
        }

        /// A backslash escape of a basic string, appended as UTF-8.
        private mutating func escape(into text: inout [UInt8]) throws(SyntaxError) {
            advance()
            guard let byte = current else { throw SyntaxError(reason: "a string is not closed") }
            advance()
            switch byte {
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): text.append(byte)
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                let digits = byte == UInt8(ascii: "u") ? 4 : 8
                guard index + digits <= bytes.count,
                    let value = UInt32(String(decoding: bytes[index..<index + digits], as: UTF8.self), radix: 16),
                    let scalar = Unicode.Scalar(value)
                else { throw SyntaxError(reason: "an escape in a string is not a Unicode scalar") }
                for _ in 0..<digits { advance() }
                text += Array(String(Character(scalar)).utf8)
            default: throw SyntaxError(reason: "a string holds an unknown escape")
            }
        }

        /// Skips any value: a string, an array or inline table (with the strings inside them), or a bare value
        /// (number, boolean, date) up to the end of the statement.
        private mutating func skipValue() throws(SyntaxError) {
            if try stringValue() != nil { return }
            guard let open = current, open == UInt8(ascii: "[") || open == UInt8(ascii: "{") else {
                while let byte = current, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "#"),
                    byte != UInt8(ascii: ","), byte != UInt8(ascii: "]"), byte != UInt8(ascii: "}")
                {
                    advance()
                }
                return
            }
            let close = open == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
            advance()
            while true {
                skipBlankLinesAndComments()
                guard let byte = current else { throw SyntaxError(reason: "an array or inline table is not closed") }
                if byte == close {
                    advance()
                    return
                }
                if byte == UInt8(ascii: ",") {
                    advance()
                } else if open == UInt8(ascii: "{") {
                    _ = try dottedKey()
                    skipSpaces()
                    guard current == UInt8(ascii: "=") else { throw SyntaxError(reason: "expected '=' after a key") }
                    advance()
                    skipSpaces()
                    try skipValue()
                } else {
                    try skipValue()
                }
            }
        }

        /// After a statement: spaces, an optional comment, then the end of the line or of the file.
        private mutating func endOfStatement() throws(SyntaxError) {
            skipSpaces()
            if current == UInt8(ascii: "#") { skipComment() }
            if current == UInt8(ascii: "\r") { advance() }
            guard current == nil || current == UInt8(ascii: "\n") else {
                throw SyntaxError(reason: "unexpected text after a value")
            }
        }

        private mutating func skipSpaces() {
            while current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") { advance() }
        }

        private mutating func skipComment() {
            while let byte = current, byte != UInt8(ascii: "\n") { advance() }
        }

        private mutating func skipBlankLinesAndComments() {
            while let byte = current {
                if Self.isWhitespaceOrNewline(byte) {
                    advance()
                } else if byte == UInt8(ascii: "#") {
                    skipComment()
                } else {
                    return
                }
            }
        }
    }
}
