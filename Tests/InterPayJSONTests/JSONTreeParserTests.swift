import InterPayJSON
import Testing

@Suite("The JSON reader: strict RFC 8259, numbers kept as text, duplicate members refused while parsing")
struct JSONTreeParserTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONTree {
        try JSONTree.parse(Array(text.utf8))
    }

    @Test("numbers keep their exact text, nested values and escapes are decoded")
    func parsesDocument() throws {
        let value = try parse(
            #" { "a": [1.0e-5, -0.5, 0, true, false, null], "b": {"c": "x\"\\\/\n\u00e9\ud83d\ude00"} } "#)
        #expect(
            value["a"]
                == .array([.number("1.0e-5"), .number("-0.5"), .number("0"), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("x\"\\/\né😀"))
        #expect(try parse("\"caf\u{e9} \u{1F600}\"") == .string("café 😀"))
    }

    @Test(
        "malformed documents are refused",
        arguments: [
            "", "{", "}", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "[01]", "[1.]", "[.5]", "[+1]", "[1e]",
            "\"unterminated", "\"bad \\x escape\"", "\"\\ud83d alone\"", "[tru]", "{} {}", "NaN", "\"tab\there\"",
            "[\"\\u12G4\"]",
        ])
    func refusesMalformed(text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test("invalid UTF-8 in a string is refused")
    func refusesInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONTree.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONTree.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
    }

    @Test("nesting deeper than the limit is refused instead of exhausting the stack")
    func depthLimit() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try parse(deep) }
        let allowed =
            String(repeating: "[", count: JSONTree.defaultMaximumDepth)
            + String(repeating: "]", count: JSONTree.defaultMaximumDepth)
        _ = try parse(allowed)
    }

    @Test("an error names the byte where the problem is")
    func errorOffset() {
        #expect(throws: JSONSyntaxError(offset: 8, reason: "expected a digit after '.'")) { try parse(#"{"a": 1.x}"#) }
    }

    @Test("a repeated member name is refused, also when escaped differently; .keep keeps both in order")
    func duplicateMembers() throws {
        let error = #expect(throws: JSONSyntaxError.self) { try parse(#"{"a": 1, "b": {"x": 1, "x": 2}}"#) }
        #expect(error?.duplicateName == "x")
        #expect(error?.offset == 23)
        #expect(throws: JSONSyntaxError.self) { try parse(#"{"a": 1, "\u0061": 2}"#) }
        // Canonically equivalent names are still two names: they are compared code point by code point.
        _ = try parse("{\"\u{e9}\": 1, \"e\u{301}\": 2}")
        // The same name in two objects is not a repetition.
        _ = try parse(#"[{"a": 1}, {"a": 2}]"#)
        let kept = try JSONTree.parse(Array(#"{"a": 1, "a": 2}"#.utf8), duplicateMembers: .keep)
        #expect(kept == .object([.init(key: "a", value: .number("1")), .init(key: "a", value: .number("2"))]))
        #expect(kept["a"] == .number("1"))
    }

    @Test("numbers beyond Double's range keep their text")
    func hugeNumbers() throws {
        #expect(
            try parse("[1e400, -0, 123456789012345678901234567890]")
                == .array([.number("1e400"), .number("-0"), .number("123456789012345678901234567890")]))
    }
}
