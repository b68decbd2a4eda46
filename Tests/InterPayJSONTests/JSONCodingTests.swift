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

    @Test("a value's tree is the one its canonical text reads as; integers at every width's extremes written exactly")
    func treeAndIntegers() throws {
        let value = Outer(
            zeta: false, items: [Inner(b: Int64.min, a: "é\u{0}"), Inner(b: 0, a: nil)], count: UInt32.max, Upper: "",
            text: "x")
        let encoder = CanonicalJSONEncoder()
        let expected =
            #"{"Upper":"","count":4294967295,"items":[{"a":"é\u0000","b":-9223372036854775808},{"b":0}],"#
            + #""text":"x","zeta":false}"#
        #expect(String(decoding: try encoder.encode(value), as: UTF8.self) == expected)
        #expect(try encoder.tree(value) == JSONTree.parse(Array(expected.utf8)))
        struct Widths: Encodable {
            var values: (Int8, Int16, Int32, Int, UInt8, UInt16, UInt64, Int64)
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(values.0)
                try container.encode(values.1)
                try container.encode(values.2)
                try container.encode(values.3)
                try container.encode(values.4)
                try container.encode(values.5)
                try container.encode(values.6)
                try container.encode(values.7)
            }
        }
        let extremes = Widths(values: (.min, .min, .max, .min, .max, 0, .max, -1))
        #expect(
            String(decoding: try encoder.encode(extremes), as: UTF8.self)
                == "[-128,-32768,2147483647,-9223372036854775808,255,0,18446744073709551615,-1]")
        #expect(try encoder.tree([1.5, 2.0]) == JSONTree.parse(Array("[1.5,2]".utf8)))
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

    /// Encodes `first` and then `second` under the same key, and an inner value whose `encode(to:)` reads its path.
    private struct Twice: Encodable {
        struct Probe: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(encoder.codingPath.map(\.stringValue).joined(separator: "."))
            }
        }

        enum Key: String, CodingKey { case value, other, nested }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("first", forKey: .value)
            try container.encode(1, forKey: .other)
            try container.encode("second", forKey: .value)
            var nested = container.nestedUnkeyedContainer(forKey: .nested)
            try nested.encode(Probe())
            try nested.encode([Probe()])
        }
    }

    @Test("a key encoded twice keeps the last value; a value's encoder knows its path")
    func keyEncodedTwice() throws {
        let encoder = CanonicalJSONEncoder()
        let text = String(decoding: try encoder.encode(Twice()), as: UTF8.self)
        #expect(text == #"{"nested":["nested.Index 0",["nested.Index 1.Index 0"]],"other":1,"value":"second"}"#)
        #expect(try encoder.tree(Twice()) == JSONTree.parse(Array(text.utf8)))
    }

    @Test("a number JSON cannot hold is refused, naming where it is")
    func invalidNumber() {
        struct Holder: Encodable { var items: [[String: Double]] }
        do {
            _ = try CanonicalJSONEncoder().encode(Holder(items: [["x": 1], ["y": .nan]]))
            Issue.record("NaN was encoded")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["items", "Index 1", "y"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("members sort by code point, also past a common eight-byte prefix, for non-ASCII names and the empty name")
    func memberOrder() throws {
        let names = [
            "amountA", "amount", "", "identifier2", "identifier10", "identifier1", "z", "é", "\u{FFFF}", "\u{10000}",
            "e\u{301}", "\u{E9}x", "Z", "a\u{0}", "a",
        ]
        // "é" and "e\u{301}" are one `String` key to a dictionary; as members they are two names.
        struct Members: Encodable {
            struct Name: CodingKey {
                let stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            let names: [String]
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Name.self)
                for (index, name) in names.enumerated() { try container.encode(index, forKey: Name(stringValue: name)) }
            }
        }
        let text = String(decoding: try CanonicalJSONEncoder().encode(Members(names: names)), as: UTF8.self)
        let expected = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let written = try JSONTree.parse(Array(text.utf8))
        guard case .object(let members) = written else {
            Issue.record("not an object: \(text)")
            return
        }
        #expect(members.map(\.key) == expected)
        for (a, b) in zip(expected, expected.dropFirst()) {
            #expect(CanonicalJSONEncoder.precedes(a, b) && !CanonicalJSONEncoder.precedes(b, a))
        }
    }
}
