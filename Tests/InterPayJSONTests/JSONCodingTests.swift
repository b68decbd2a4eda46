import InterPayJSON
import Testing

@Suite("Typed values from the reader's tree, and the protocol's canonical JSON")
struct JSONCodingTests {
    private struct Inner: Codable, Equatable {
        var b: Int64
        var a: String?
    }

    private struct Outer: Codable, Equatable {
        var zeta: Bool
        var items: [Inner]
        var count: UInt32
        var Upper: String
        var text: String
    }

    private func tree(_ text: String) throws -> JSONTree {
        try JSONTree.parse(Array(text.utf8))
    }

    @Test("members come out in code point order, recursively, compact; only the protocol's escapes")
    func canonicalForm() throws {
        let value = Outer(
            zeta: true, items: [Inner(b: -3, a: nil), Inner(b: 7, a: "x/y")], count: 4, Upper: "U",
            text: "q\"b\\\u{8}\t\n\u{C}\r\u{1}\u{1F}\u{7F}é\u{2028}")
        let bytes = try CanonicalJSONEncoder().encode(value)
        // "Upper" sorts before lower-case names (code point order, not case-insensitive); "a": nil is left out.
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"Upper":"U","count":4,"items":[{"b":-3},{"a":"x/y","b":7}],"#
                + #""text":"q\"b\\\b\t\n\f\r\u0001\u001f"# + "\u{7F}é\u{2028}" + #"","zeta":true}"#)
        // And it reads back to the same value.
        #expect(
            try JSONTreeDecoder().decode(Outer.self, from: try tree(String(decoding: bytes, as: UTF8.self))) == value)
    }

    @Test("a value encoded into a tree is the tree its canonical text parses to, without the text")
    func treeWithoutText() throws {
        let value = Outer(
            zeta: false, items: [Inner(b: Int64.min, a: "é\u{0}"), Inner(b: 0, a: nil)], count: 0, Upper: "",
            text: "x")
        let encoder = CanonicalJSONEncoder()
        #expect(try encoder.tree(value) == JSONTree.parse(try encoder.encode(value)))
        #expect(try encoder.tree([1.5, 2.0]) == JSONTree.parse(try encoder.encode([1.5, 2.0])))
    }

    @Test("integers read exactly from their text; an integral value written with a fraction or exponent is taken")
    func integers() throws {
        let decoder = JSONTreeDecoder()
        #expect(try decoder.decode(Inner.self, from: try tree(#"{"b": 9223372036854775807}"#)).b == .max)
        #expect(try decoder.decode(Inner.self, from: try tree(#"{"b": 1500.0}"#)).b == 1_500)
        #expect(try decoder.decode(Inner.self, from: try tree(#"{"b": 1.5e3}"#)).b == 1_500)
    }

    @Test("what does not fit names its path: missing, null, wrong type, fraction, out of range")
    func errors() throws {
        let decoder = JSONTreeDecoder()
        func failure(_ text: String) throws -> DecodingError? {
            do {
                _ = try decoder.decode(Outer.self, from: try tree(text))
                return nil
            } catch let error as DecodingError {
                return error
            }
        }
        let valid = #"{"zeta": true, "items": [{"b": 1}], "count": 1, "Upper": "U", "text": "t"}"#
        #expect(try decoder.decode(Outer.self, from: try tree(valid)).items == [Inner(b: 1, a: nil)])
        guard case .keyNotFound(let key, _)? = try failure(#"{"zeta": true}"#) else {
            Issue.record("a missing member is keyNotFound")
            return
        }
        #expect(key.stringValue == "items")
        let fraction = valid.replacing(#"{"b": 1}"#, with: #"{"b": 12.5}"#)
        guard case .dataCorrupted(let context)? = try failure(fraction) else {
            Issue.record("a fraction where an integer is required is dataCorrupted")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 0", "b"])
        let negative = valid.replacing(#""count": 1"#, with: #""count": -1"#)
        guard case .dataCorrupted(let context)? = try failure(negative) else {
            Issue.record("-1 for an unsigned field is dataCorrupted")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["count"])
        let null = valid.replacing(#""text": "t""#, with: #""text": null"#)
        guard case .valueNotFound? = try failure(null) else {
            Issue.record("null where a value is required is valueNotFound")
            return
        }
        let wrongType = valid.replacing(#""zeta": true"#, with: #""zeta": "yes""#)
        guard case .typeMismatch? = try failure(wrongType) else {
            Issue.record("a string where a boolean is required is typeMismatch")
            return
        }
    }
}
