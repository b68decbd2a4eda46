import Foundation
import InterPayCore
import Testing

@Suite("Safe text: control characters refused on the wire, escaped when shown; names never look like IDs")
struct SafeTextTests {
    static let codec = FrameCodec()

    @Test(
        "control and bidi characters are forbidden; ordinary text, accents and emoji are not",
        arguments: [
            ("\u{1B}[8m", true), ("line\nbreak", true), ("tab\there", true), ("\u{7F}", true), ("\u{85}", true),
            ("\u{202E}gpj.exe", true), ("\u{2066}x\u{2069}", true), ("\u{200F}", true), ("\u{061C}", true),
            ("Alice's laptop", false), ("Ölé ☕", false), ("日本", false), ("", false),
        ])
    func forbidden(text: String, isForbidden: Bool) {
        #expect((SafeText.forbiddenScalar(in: text) != nil) == isForbidden)
    }

    @Test("escaping shows every forbidden scalar and cannot itself be forged")
    func escaping() {
        #expect(SafeText.escaped("rent\u{1B}[8m") == "rent\\u{001B}[8m")
        #expect(SafeText.escaped("a\nb") == "a\\u{000A}b")
        #expect(SafeText.escaped("\u{202E}") == "\\u{202E}")
        // A literal backslash-u sequence in the text stays distinguishable from an escape.
        #expect(SafeText.escaped("\\u{001B}") == "\\\\u{001B}")
        #expect(SafeText.escaped("plain") == "plain")
        for scalar in (0..<0x20).compactMap(Unicode.Scalar.init) {
            #expect(SafeText.forbiddenScalar(in: SafeText.escaped(String(scalar))) == nil)
        }
    }

    @Test(
        "text written like a peer ID or a prefix of one",
        arguments: [
            ("ABCD", true), ("ABCDEFG", true), ("ABCDEFG-HIJ", true), ("abcdefg-hijklmn", true),
            ("ABCDEFG-HIJKLMN-OPQRSTU", true), ("ABC", false), ("abcd", false), ("alice", false),
            ("Jessica", false), ("bob", false), ("mary-ann", false), ("ABCD1", false), ("ABCDEFG-", true),
            ("DESKTOP7", true), ("desktop7", false), ("Bob's phone", false),
        ])
    func writtenLikeID(text: String, expected: Bool) {
        #expect(PeerID.isWrittenLikeID(text) == expected, "\(text)")
    }

    @Test("a whole peer ID, in any case, is written like an ID")
    func wholeID() throws {
        let id = Fixtures.payee
        #expect(PeerID.isWrittenLikeID(id.description))
        #expect(PeerID.isWrittenLikeID(id.description.lowercased()))
        #expect(PeerID.isWrittenLikeID(id.shortDescription))
    }

    @Test("display names: length in code points, no control characters, nothing that reads as an ID")
    func displayNames() throws {
        #expect(DisplayName.problem(with: "alice") == nil)
        #expect(DisplayName.problem(with: "Ölé ☕") == nil)
        #expect(DisplayName.problem(with: "") != nil)
        #expect(DisplayName.problem(with: String(repeating: "é", count: 63)) == nil)
        #expect(DisplayName.problem(with: String(repeating: "é", count: 64))?.contains("code points") == true)
        #expect(DisplayName.problem(with: "bob\u{1B}[8m")?.contains("U+001B") == true)
        #expect(DisplayName.problem(with: "bob\nid=X") != nil)
        #expect(DisplayName.problem(with: Fixtures.payer.description)?.contains("peer ID") == true)
        #expect(DisplayName.problem(with: Fixtures.payer.shortDescription) != nil)
    }

    static func hello(name: String) -> String {
        let quoted = String(decoding: (try? JSONEncoder().encode(name)) ?? Data(), as: UTF8.self)
        return #"{"type":"hello","minVersion":1,"maxVersion":1,"name":"# + quoted + #","capabilities":[],"agent":""}"#
    }

    @Test("a hello whose name holds a control character or reads as a peer ID is invalid-field")
    func helloNames() throws {
        for name in ["bob\u{1B}[8m", "ev\u{202E}il", Fixtures.payee.description, "ABCDEFG", "x\ny"] {
            do {
                _ = try Self.codec.decodeBody(Array(Self.hello(name: name).utf8))
                Issue.record("a hello named \(SafeText.escaped(name)) was accepted")
            } catch {
                #expect(error.code == "invalid-field", "\(error)")
            }
        }
        let accepted = try Self.codec.decodeBody(Array(Self.hello(name: "alice").utf8))
        guard case .hello(let hello) = accepted else {
            Issue.record("not a hello")
            return
        }
        #expect(hello.name == "alice")
    }

    @Test("memo, category and reject reason with control characters are invalid-field on the wire")
    func frameText() throws {
        let payment = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 1_795_000_900))
        let valid = try Self.codec.encodeBody(.request(.init(messageID: Fixtures.fixedUUID(9), payment: payment)))
        let text = String(decoding: valid, as: UTF8.self)
        let memo = payment.memo
        for bad in ["\\u001b]0;pwned\\u0007", "erase\\r", "\\u202e"] {
            let tampered = text.replacingOccurrences(of: "\"memo\":\"\(memo)\"", with: "\"memo\":\"\(bad)\"")
            #expect(tampered != text)
            #expect(throws: FrameError.self) { try Self.codec.decodeBody(Array(tampered.utf8)) }
        }
        let reject =
            #"{"type":"reject","messageID":"00000000-0000-4000-8000-000000000001","#
            + #""paymentID":"00000000-0000-4000-8000-000000000002","reason":"no\u001b[2J"}"#
        do {
            _ = try Self.codec.decodeBody(Array(reject.utf8))
            Issue.record("a reject reason with ESC was accepted")
        } catch {
            #expect(error.code == "invalid-field")
        }
    }

    @Test("a request built locally refuses control characters in memo and category")
    func localRequest() throws {
        let payee = Fixtures.payee
        let payer = Fixtures.payer
        let amount = try Money(parsing: "1.00", currencyCode: "EUR")
        for (memo, category) in [("a\u{1B}[8m", nil), ("ok", "x\ny")] as [(String, String?)] {
            #expect(throws: PaymentRequestError.self) {
                try PaymentRequest(
                    id: UUID(), payee: payee, payer: payer, amount: amount, memo: memo, category: category,
                    createdAt: Timestamp(secondsSince1970: 1), expiresAt: Timestamp(secondsSince1970: 2))
            }
        }
    }
}
