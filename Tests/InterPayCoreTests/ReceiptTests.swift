import Foundation
import InterPayCore
import Testing

@Suite("Signed receipts")
struct ReceiptTests {
    static func receipt(signer: ReceiptSigner, quote: Bool = true) throws -> Receipt {
        let payer = PeerID(subjectPublicKeyInfoDER: Array("payer".utf8))
        return Receipt(
            paymentID: Fixtures.fixedUUID(7), payeeID: signer.peerID, payeeName: "Café \"Ana\"",
            payerID: payer, payerName: "bob", amount: try Money(parsing: "12.50", currencyCode: "MXN"),
            memo: "lunch\\tacos ✓", category: "food", acceptedAt: Timestamp(secondsSince1970: 1_764_000_000),
            settledAt: Timestamp(secondsSince1970: 1_764_000_600), method: .transfer, reference: "SPEI 0042",
            quote: quote
                ? Receipt.Quote(
                    amount: try Money(parsing: "0.62", currencyCode: "EUR"), rate: "0.0496",
                    ratesAt: Timestamp(secondsSince1970: 1_763_990_000)) : nil,
            payeeKey: signer.publicKeyDER)
    }

    @Test("a signed receipt verifies, and its text is the canonical form with sorted keys and no whitespace")
    func signAndVerify() throws {
        let signer = ReceiptSigner()
        let signed = try SignedReceipt.sign(try Self.receipt(signer: signer), with: signer)
        let verified = try SignedReceipt(verifying: signed.text)
        #expect(verified == signed)
        #expect(try SignedReceipt(verifying: Array((signed.text + "\n").utf8)) == signed)
        #expect(
            signed.text.hasPrefix("{\"acceptedAt\":\"2025-11-24T16:00:00Z\",\"amount\":\"1250\",\"category\":\"food\""))
        #expect(signed.text.contains("\"payeeName\":\"Café \\\"Ana\\\"\""))
        #expect(signed.text.contains("\"memo\":\"lunch\\\\tacos ✓\""))
        #expect(
            signed.text.contains(
                "\"quote\":{\"amount\":\"62\",\"currency\":\"EUR\",\"rate\":\"0.0496\",\"ratesAt\":\"2025-11-24T13:13:20Z\"}"
            ))
        #expect(!signed.text.contains(" \"") && !signed.text.contains("\n"))
        #expect(signed.signature.count == 64)
        #expect(signed.summary.contains("12.50 MXN"))
        // Without the optional members.
        var bare = try Self.receipt(signer: signer, quote: false)
        bare.category = nil
        bare.method = nil
        bare.reference = nil
        let bareSigned = try SignedReceipt.sign(bare, with: signer)
        #expect(try SignedReceipt(verifying: bareSigned.text).receipt == bare)
        #expect(!bareSigned.text.contains("quote") && !bareSigned.text.contains("method"))
    }

    @Test("a payer's checks of a receipt's terms: its payment, its name, its paid's method and reference, its times")
    func termsAgainstThePayment() throws {
        let signer = ReceiptSigner()
        let receipt = try Self.receipt(signer: signer)
        let accepted = receipt.acceptedAt
        let expected = ReceiptExpectation(
            paymentID: receipt.paymentID, payeeID: receipt.payeeID, payerID: receipt.payerID, payerName: "bob",
            amount: receipt.amount, memo: receipt.memo, category: receipt.category, method: .transfer,
            reference: "SPEI 0042", acceptedAt: accepted, now: receipt.settledAt)
        #expect(receipt.mismatch(with: expected) == nil)
        // Neither method nor reference: the payee settled before the payer's paid reached it.
        var early = receipt
        early.method = nil
        early.reference = nil
        #expect(early.mismatch(with: expected) == nil)
        // Clocks apart by up to the protocol's skew either way.
        var skewed = receipt
        skewed.acceptedAt = accepted.adding(seconds: -Limits.maxClockSkew)
        skewed.settledAt = receipt.settledAt.adding(seconds: Limits.maxClockSkew)
        #expect(skewed.mismatch(with: expected) == nil)

        let bends: [(String, (inout Receipt) -> Void)] = [
            ("payment", { $0.paymentID = Fixtures.fixedUUID(8) }),
            ("payer", { $0.payerID = PeerID(subjectPublicKeyInfoDER: Array("other".utf8)) }),
            ("amount", { $0.amount = Money(minorUnits: 1, currency: $0.amount.currency) }),
            ("memo", { $0.memo = "other" }),
            ("category", { $0.category = nil }),
            ("payer name", { $0.payerName = "carol" }),
            ("method", { $0.method = .cash }),
            ("reference", { $0.reference = "SPEI 9999" }),
            ("reference dropped", { $0.reference = nil }),
            (
                "accepted after settled (settled 2019, accepted 2030)",
                {
                    $0.acceptedAt = Timestamp(secondsSince1970: 1_893_456_000)
                    $0.settledAt = Timestamp(secondsSince1970: 1_546_300_800)
                }
            ),
            (
                "accepted before the payer accepted",
                { $0.acceptedAt = accepted.adding(seconds: -Limits.maxClockSkew - 1) }
            ),
            ("settled after it arrived", { $0.settledAt = $0.settledAt.adding(seconds: Limits.maxClockSkew + 1) }),
        ]
        for (what, bend) in bends {
            var bent = receipt
            bend(&bent)
            #expect(bent.mismatch(with: expected) != nil, "\(what)")
        }
        // A payer that sent no paid keeps no receipt claiming one.
        var unpaid = expected
        unpaid.method = nil
        unpaid.reference = nil
        #expect(receipt.mismatch(with: unpaid) != nil)
        #expect(early.mismatch(with: unpaid) == nil)
    }

    @Test("a receipt with any byte changed fails to verify")
    func everyByteMatters() throws {
        let signer = ReceiptSigner()
        let signed = try SignedReceipt.sign(try Self.receipt(signer: signer), with: signer)
        let bytes = Array((signed.text + "\n").utf8)
        for index in bytes.indices {
            for replacement: UInt8 in [bytes[index] ^ 0x01, bytes[index] == 0x20 ? 0x21 : 0x20] {
                var changed = bytes
                changed[index] = replacement
                #expect(throws: ReceiptError.self, "byte \(index)") { try SignedReceipt(verifying: changed) }
            }
        }
        // Whitespace between members, reordered members or an added member: not the canonical form.
        let spaced = signed.text.replacingOccurrences(of: "\",\"", with: "\", \"")
        #expect(throws: ReceiptError.notCanonical) { try SignedReceipt(verifying: spaced) }
        let added = "{\"extra\":\"x\"," + signed.text.dropFirst()
        #expect(throws: ReceiptError.notCanonical) { try SignedReceipt(verifying: added) }
    }

    @Test("a changed amount with a fresh canonical form fails the signature")
    func changedTerms() throws {
        let signer = ReceiptSigner()
        let signed = try SignedReceipt.sign(try Self.receipt(signer: signer), with: signer)
        let forged = signed.text.replacingOccurrences(of: "\"amount\":\"1250\"", with: "\"amount\":\"9250\"")
        #expect(throws: ReceiptError.badSignature) { try SignedReceipt(verifying: forged) }
    }

    @Test("a key that does not hash to the payee ID fails, even with a valid signature by that key")
    func keyMustMatchPayee() throws {
        let payee = ReceiptSigner()
        let mallory = ReceiptSigner()
        // Mallory signs terms naming the payee's ID with her own key.
        var terms = try Self.receipt(signer: payee)
        terms.payeeKey = mallory.publicKeyDER
        #expect(throws: ReceiptError.keyMismatch) { try SignedReceipt.sign(terms, with: mallory) }
        terms.payeeID = mallory.peerID
        let signed = try SignedReceipt.sign(terms, with: mallory)
        let renamed = signed.text.replacingOccurrences(
            of: mallory.peerID.description, with: payee.peerID.description)
        #expect(throws: ReceiptError.keyMismatch) { try SignedReceipt(verifying: renamed) }
    }

    @Test("a quote's rate is exact decimal text: escapes for a terminal, or any other text, do not verify")
    func rateIsDecimal() throws {
        let signer = ReceiptSigner()
        for rate in ["\u{1B}[1A\u{1B}[2KAmount 0.01 MXN", "1e-5", ".5", "5.", "1.2.3", "", "-0.5", "0,05", "１８.5"] {
            var receipt = try Self.receipt(signer: signer)
            receipt.quote?.rate = rate
            // Signed by the payee's own key: before, the receipt verified whatever the rate said.
            let signed = try SignedReceipt.sign(receipt, with: signer)
            #expect(throws: ReceiptError.self, "\(rate.debugDescription)") {
                try SignedReceipt(verifying: signed.text)
            }
        }
        for rate in ["18.5", "0.0496", "1", "123456789.000000001"] {
            var receipt = try Self.receipt(signer: signer)
            receipt.quote?.rate = rate
            #expect(try SignedReceipt(verifying: try SignedReceipt.sign(receipt, with: signer).text).receipt == receipt)
        }
    }

    @Test("text a person reads carries no control or bidi character: the payee's own signature does not make it so")
    func textIsSafe() throws {
        let signer = ReceiptSigner()
        for text in ["coffee \u{202E}0009 RUE\u{202C}", "a\u{9B}8m", "del\u{7F}", "tab\there"] {
            for member in ["memo", "payeeName", "payerName", "category", "reference"] {
                var receipt = try Self.receipt(signer: signer)
                switch member {
                case "memo": receipt.memo = text
                case "payeeName": receipt.payeeName = text
                case "payerName": receipt.payerName = text
                case "category": receipt.category = text
                default: receipt.reference = text
                }
                let signed = try SignedReceipt.sign(receipt, with: signer)
                #expect(throws: ReceiptError.self, "\(member): \(text.debugDescription)") {
                    try SignedReceipt(verifying: signed.text)
                }
            }
        }
    }

    @Test("malformed receipts name what is wrong")
    func malformed() throws {
        #expect(throws: ReceiptError.self) { try SignedReceipt(verifying: "not json") }
        do {
            _ = try SignedReceipt(verifying: "{\"type\":\"interpay-receipt\"}")
            Issue.record("accepted a receipt without members")
        } catch {
            #expect(error.description.contains("missing"))
        }
    }

    @Test("ISO 8601 times format and parse exactly")
    func times() {
        for seconds: Int64 in [0, 951_782_400, 1_764_000_000, 4_102_444_799] {
            let time = Timestamp(secondsSince1970: seconds)
            #expect(ISO8601Time.parse(ISO8601Time.format(time)) == time)
        }
        #expect(ISO8601Time.format(Timestamp(secondsSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(ISO8601Time.parse("2025-02-29T00:00:00Z") == nil)
        #expect(ISO8601Time.parse("2025-11-24T16:00:00+00:00") == nil)
    }
}
