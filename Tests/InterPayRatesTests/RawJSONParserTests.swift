import Testing

@testable import InterPayRates

@Suite("Raw JSON parser: strict RFC 8259, numbers kept as text")
struct RawJSONParserTests {
    private func parse(_ text: String) throws(RawJSONError) -> RawJSONValue {
        try RawJSONParser.parse(Array(text.utf8))
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
        #expect(throws: RawJSONError.self) { try parse(text) }
    }

    @Test("invalid UTF-8 in a string is refused")
    func refusesInvalidUTF8() {
        #expect(throws: RawJSONError.self) { try RawJSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: RawJSONError.self) { try RawJSONParser.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
    }

    @Test("nesting deeper than the limit is refused instead of exhausting the stack")
    func depthLimit() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: RawJSONError.self) { try parse(deep) }
        let allowed =
            String(repeating: "[", count: RawJSONParser.maximumDepth)
            + String(repeating: "]", count: RawJSONParser.maximumDepth)
        _ = try parse(allowed)
    }

    @Test("an error names the byte where the problem is")
    func errorOffset() {
        #expect(throws: RawJSONError(offset: 8, reason: "expected a digit after '.'")) { try parse(#"{"a": 1.x}"#) }
    }
}
