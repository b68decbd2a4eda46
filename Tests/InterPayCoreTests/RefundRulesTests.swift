import Foundation
import InterPayCore
import Testing

@Suite("Refund rules (PROTOCOL.md §8.7)")
struct RefundRulesTests {
    /// 30.00 EUR, built without the currency table (`CurrencyCode(validating:)` would be the same).
    static var eur: Money { Money(minorUnits: 30_00, currency: euro) }
    static let euro: CurrencyCode = {
        do { return try CurrencyCode("EUR") } catch { fatalError("EUR is a currency: \(error)") }
    }()

    @Test(
        "every role, state, count and amount: given only by the payee, taken only by the payer, of an accepted payment, within what is left"
    )
    func table() throws {
        let usd = try CurrencyCode("USD")
        for role in PaymentRole.allCases {
            for state in PaymentState.allCases {
                for (refunded, count) in [(0, 0), (10_00, 1), (30_00, 2), (29_00, RefundRules.maxRefunds)] {
                    let original = RefundRules.Original(
                        role: role, state: state, amount: Self.eur, refundedMinor: Int64(refunded), refunds: count)
                    for minor in [1, 1_00, 20_00, 20_01, 30_00] {
                        for currency in [Self.eur.currency, usd] {
                            let amount = Money(minorUnits: Int64(minor), currency: currency)
                            let expected: RefundRules.Refusal? =
                                if !state.isAccepted { .notAccepted(state) } else if currency != Self.eur.currency {
                                    .otherCurrency(expected: Self.eur.currency)
                                } else if count >= RefundRules.maxRefunds {
                                    .tooMany
                                } else if Int64(minor) > 30_00 - Int64(refunded) {
                                    .exceedsLeft(left: original.left)
                                } else { nil }
                            let give = RefundRules.give(amount, of: original)
                            let take = RefundRules.take(amount, of: original)
                            #expect(give == (role == .payee ? expected : .wrongRole(role)), "\(role) \(state) \(minor)")
                            #expect(take == (role == .payer ? expected : .wrongRole(role)), "\(role) \(state) \(minor)")
                        }
                    }
                }
            }
        }
    }

    @Test("every case matches the table in the fixtures (Fixtures/refund-rules.txt, written from PROTOCOL.md §8.7)")
    func fixtureTable() throws {
        let url = RepositoryFiles.root.appending(path: "Tests/InterPayCoreTests/Fixtures/refund-rules.txt")
        let expected = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        var actual: [String] = []
        for side in ["give", "take"] {
            for role in [PaymentRole.payee, .payer] {
                for state in PaymentState.allCases {
                    for (refunded, count) in [(Int64(0), 0), (1_000, 1), (3_000, 2), (2_900, 16)] {
                        let original = RefundRules.Original(
                            role: role, state: state, amount: Self.eur, refundedMinor: refunded, refunds: count)
                        for minor in [Int64(1), 100, 2_000, 2_001, 3_000] {
                            for code in ["EUR", "USD"] {
                                let amount = Money(minorUnits: minor, currency: try CurrencyCode(code))
                                let refusal =
                                    side == "give"
                                    ? RefundRules.give(amount, of: original) : RefundRules.take(amount, of: original)
                                let verdict =
                                    switch refusal {
                                    case nil: "ok"
                                    case .wrongRole: "role"
                                    case .notAccepted: "not-accepted"
                                    case .otherCurrency: "currency"
                                    case .tooMany: "too-many"
                                    case .exceedsLeft(let left): "exceeds:\(left.minorUnits)"
                                    }
                                actual.append(
                                    "\(side) \(role.rawValue) \(state.rawValue) \(refunded)/\(count) \(minor) \(code) => "
                                        + verdict)
                            }
                        }
                    }
                }
            }
        }
        #expect(actual.count == 1_120 && expected.count == actual.count)
        for (want, got) in zip(expected, actual) { #expect(String(want) == got) }
    }

    @Test("what is left, and the words of each refusal")
    func words() throws {
        let original = RefundRules.Original(
            role: .payee, state: .settled, amount: Self.eur, refundedMinor: 10_00, refunds: 1)
        #expect(original.left.minorUnits == 20_00)
        #expect(
            RefundRules.give(Money(minorUnits: 20_01, currency: Self.eur.currency), of: original)?.description
                == "only 20.00 EUR is left to refund")
        let full = RefundRules.Original(role: .payee, state: .paid, amount: Self.eur, refundedMinor: 30_00, refunds: 2)
        #expect(
            RefundRules.give(Money(minorUnits: 1, currency: Self.eur.currency), of: full)?.description
                == "the payment was refunded in full already")
        #expect(RefundRules.Refusal.notAccepted(.cancelled).description.contains("cancelled"))
    }

    @Test("a refund receipt signs its kind and the payment refunded; a payment's receipt is not a refund's")
    func refundReceipt() throws {
        let signer = ReceiptSigner()
        let payment = UUID()
        let refund = UUID()
        let payer = PeerID(subjectPublicKeyInfoDER: Array("payer".utf8))
        let at = Timestamp(secondsSince1970: 1_795_000_000)
        let terms = Receipt(
            paymentID: refund, payeeID: signer.peerID, payeeName: "shop", payerID: payer, payerName: "bob",
            amount: Self.eur, memo: "returned", category: nil, acceptedAt: at, settledAt: at.adding(seconds: 60),
            method: nil, reference: nil, quote: nil, payeeKey: signer.publicKeyDER, refundOf: payment)
        let signed = try SignedReceipt.sign(terms, with: signer)
        #expect(signed.text.contains(#""kind":"refund""#) && signed.text.contains(payment.wireString))
        let verified = try SignedReceipt(verifying: signed.text)
        #expect(verified.receipt.refundOf == payment && verified.summary.hasPrefix("refund receipt"))
        var expected = ReceiptExpectation(
            paymentID: refund, payeeID: signer.peerID, payerID: payer, payerName: "bob", amount: Self.eur,
            memo: "returned", category: nil, method: nil, reference: nil, acceptedAt: at, now: at.adding(seconds: 61),
            refundOf: payment)
        #expect(verified.receipt.mismatch(with: expected) == nil)
        expected.refundOf = nil
        #expect(verified.receipt.mismatch(with: expected) == "it is a refund's receipt, not a payment's")
        expected.refundOf = UUID()
        #expect(verified.receipt.mismatch(with: expected) == "it is not this refund's")
    }
}
