import Foundation
import InterPayContract
import InterPayControl
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test("integers round-trip exactly, never through Double")
    func exactIntegers() throws {
        let values: [Int64] = [0, -1, 1 << 53 + 1, 1 << 62, Int64.max, Int64.min]
        for value in values {
            let parsed = try JSONValue(parsing: String(value))
            #expect(parsed == .int(value))
            #expect(JSONValue.int(value).jsonText == String(value))
        }
        #expect(try JSONValue(parsing: "4611686018427387904") == .int(4_611_686_018_427_387_904))
    }

    @Test("numbers with fraction or exponent, or beyond Int64, are doubles")
    func doubles() throws {
        #expect(try JSONValue(parsing: "1.5") == .double(1.5))
        #expect(try JSONValue(parsing: "1.0") == .double(1))
        #expect(try JSONValue(parsing: "-2e3") == .double(-2000))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        for value in [0.1, 1e-5, 1e20, -0.5, 123_456.789] {
            #expect(try JSONValue(parsing: JSONValue.double(value).jsonText) == .double(value))
        }
        #expect(JSONValue.double(.infinity).jsonText == "null")
    }

    @Test("strings: escapes, surrogate pairs, raw UTF-8, control characters")
    func strings() throws {
        #expect(try JSONValue(parsing: #""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        let tricky = "quote\" backslash\\ newline\n bell\u{07} peso ₱ 😀"
        let text = JSONValue.string(tricky).jsonText
        #expect(text == #""quote\" backslash\\ newline\n bell\u0007 peso ₱ 😀""#)
        #expect(try JSONValue(parsing: text) == .string(tricky))
    }

    @Test("nested values round-trip; objects are written with sorted keys")
    func nested() throws {
        let value: JSONValue = [
            "b": [1, 2.5, "three", nil_, true, ["deep": [[]]]],
            "a": ["big": .int(1 << 62), "neg": .int(Int64.min), "empty": [:]],
        ]
        let text = value.jsonText
        #expect(text.hasPrefix(#"{"a":{"big":4611686018427387904,"empty":{},"neg":-9223372036854775808}"#))
        #expect(try JSONValue(parsing: text) == value)
        #expect(try JSONValue(parsing: " \n\t\(text) \r\n") == value)
    }

    @Test(
        "malformed input is rejected with a reason",
        arguments: [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "1e", "tru", "nul", "\"abc", "\"\\x\"", "\"\\ud800\"",
            "\"a\u{01}b\"", "{a:1}", "[1 2]", "1 2", "NaN", "+1", "1e999", "\"\\u12\"",
        ])
    func malformed(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test("invalid UTF-8 in a string is rejected")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("nesting is bounded")
    func depth() throws {
        let ok =
            String(repeating: "[", count: JSONValue.maximumDepth)
            + String(repeating: "]", count: JSONValue.maximumDepth)
        _ = try JSONValue(parsing: ok)
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    }

    @Test("Codable bridges keep integers exact")
    func codable() throws {
        struct Payment: Codable, Equatable {
            var id: String
            var minor: Int64
            var rate: Double
        }
        let payment = Payment(id: "p1", minor: 1 << 62, rate: 0.25)
        let value = try JSONValue(encoding: payment)
        #expect(value["minor"] == .int(1 << 62))
        #expect(try value.decode(Payment.self) == payment)
        let viaDecoder = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"n":4611686018427387904,"x":[true,null]}"#.utf8))
        #expect(viaDecoder == ["n": .int(1 << 62), "x": [true, .null]])
        let reencoded = try JSONValue(parsing: try JSONEncoder().encode(viaDecoder))
        #expect(reencoded == viaDecoder)
    }

    @Test("accessors")
    func accessors() {
        let value: JSONValue = ["list": [1, "x"], "flag": false, "n": 3, "f": 2.0]
        #expect(value["list"]?[1]?.stringValue == "x")
        #expect(value["list"]?[2] == nil)
        #expect(value["flag"]?.boolValue == false)
        #expect(value["n"]?.intValue == 3)
        #expect(value["f"]?.intValue == 2)
        #expect(value["n"]?.doubleValue == 3)
        #expect(value["missing"] == nil)
        #expect(JSONValue.null.isNull)
    }
}

/// `null` in literals (JSONValue is deliberately not `ExpressibleByNilLiteral`).
private let nil_ = JSONValue.null
