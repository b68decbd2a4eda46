import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

@Suite("Settlement and receipts over an in-memory link", .tearsDown, .serialized)
struct SettlementTests {
    /// Alice (payee, signing receipts) asks Bob for 12.50 MXN and Bob accepts; returns the payment's ID.
    static func accepted(_ alice: MemoryNode, _ bob: MemoryNode) async throws -> UUID {
        MemoryLink.connect(alice.link, bob.link)
        await eventually("both sides hold the session") {
            alice.link.session(with: bob.id) != nil && bob.link.session(with: alice.id) != nil
        }
        let record = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "tacos", category: "food", expiresIn: 600, wait: .seconds(10))
        let accepted = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        #expect(accepted.state == .accepted && accepted.confirmed)
        return record.id
    }

    @Test("paid → received: settled on both sides, the payee's signed receipt stored on both, and it verifies")
    func paidThenReceived() async throws {
        let signer = ReceiptSigner()
        let (alice, bob) = (try MemoryNode("alice", signer: signer), try MemoryNode("bob"))
        let id = try await Self.accepted(alice, bob)
        let paid = try await bob.engine.markPaid(
            paymentID: id, method: .transfer, reference: "SPEI 0042", wait: .seconds(10))
        #expect(paid.state == .paid && paid.confirmed)
        let onAlice = try #require(try await alice.database.payment(id: id))
        #expect(onAlice.state == .paid && onAlice.paidMethod == .transfer && onAlice.paidReference == "SPEI 0042")

        let settled = try await alice.engine.settle(paymentID: id)
        #expect(settled.state == .settled)
        let receiptText = try #require(settled.receipt)
        let receipt = try SignedReceipt(verifying: receiptText).receipt
        #expect(receipt.payeeID == alice.id && receipt.payerID == bob.id && receipt.payerName == "bob")
        let amount = try pesos()
        #expect(receipt.method == .transfer && receipt.reference == "SPEI 0042" && receipt.amount == amount)
        await eventually("the payer stored the settlement and the receipt") {
            (try? await bob.database.payment(id: id))?.receipt != nil
        }
        let onBob = try #require(try await bob.database.payment(id: id))
        #expect(onBob.state == .settled && onBob.confirmed && onBob.receipt == receiptText)
        await eventually("the settle frame was acknowledged") {
            (try? await alice.database.outbox(peerID: bob.id).isEmpty) == true
        }
        await alice.stop()
        await bob.stop()
    }

    @Test("the payee may settle directly; a paid mark crossing it ends settled on both sides")
    func settleCrossesPaid() async throws {
        let signer = ReceiptSigner()
        let (alice, bob) = (try MemoryNode("alice", signer: signer), try MemoryNode("bob"))
        let id = try await Self.accepted(alice, bob)
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("the session is gone") { bob.link.session(with: alice.id) == nil }
        // Both act while apart: the frames cross when the session comes back.
        let tentative = try await bob.engine.markPaid(paymentID: id, method: .cash, reference: nil, wait: .zero)
        #expect(tentative.state == .paid && !tentative.confirmed)
        let settled = try await alice.engine.settle(paymentID: id)
        #expect(settled.state == .settled && settled.receipt != nil)
        MemoryLink.connect(alice.link, bob.link)
        await eventually("the payer is settled, confirmed, with the receipt") {
            let onBob = try? await bob.database.payment(id: id)
            return onBob?.state == .settled && onBob?.confirmed == true && onBob?.receipt != nil
        }
        #expect(try await alice.database.payment(id: id)?.state == .settled)
        await eventually("both outboxes are empty") {
            let atAlice = (try? await alice.database.outbox(peerID: bob.id).isEmpty) == true
            let atBob = (try? await bob.database.outbox(peerID: alice.id).isEmpty) == true
            return atAlice && atBob
        }
        await alice.stop()
        await bob.stop()
    }

    @Test("refusals: paid before the payee confirmed, paid by the payee, received by the payer, settled twice")
    func refusals() async throws {
        let (alice, bob) = (try MemoryNode("alice", signer: ReceiptSigner()), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        let record = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        await #expect(throws: EngineError.self) {
            try await bob.engine.markPaid(paymentID: record.id, method: nil, reference: nil)
        }
        await #expect(throws: EngineError.self) { try await alice.engine.settle(paymentID: record.id) }
        _ = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        await #expect(throws: EngineError.self) {
            try await alice.engine.markPaid(paymentID: record.id, method: nil, reference: nil)
        }
        await #expect(throws: EngineError.self) { try await bob.engine.settle(paymentID: record.id) }
        _ = try await alice.engine.settle(paymentID: record.id)
        await #expect(throws: EngineError.self) { try await alice.engine.settle(paymentID: record.id) }
        await alice.stop()
        await bob.stop()
    }

    @Test("a payer without the receipts capability completes request → accept; received towards it is refused")
    func peerWithoutReceipts() async throws {
        let alice = try MemoryNode("alice", signer: ReceiptSigner())
        let bob = try MemoryNode("bob", capabilities: [])
        let id = try await Self.accepted(alice, bob)
        // Settled here alone, the payer could never be told nor get its receipt (T-CAPS): refused, nothing changes.
        await #expect(throws: EngineError.self) { try await alice.engine.settle(paymentID: id) }
        let kept = try #require(try await alice.database.payment(id: id))
        #expect(kept.state == .accepted && kept.receipt == nil)
        #expect(try await alice.database.outbox(peerID: bob.id).isEmpty)
        #expect(try await bob.database.payment(id: id)?.state == .accepted)
        await alice.stop()
        await bob.stop()
    }

    @Test("a settle queued while the payer was away is dropped when the payer turns out to lack receipts")
    func queuedSettleForAnOldPeer() async throws {
        let alice = try MemoryNode("alice", signer: ReceiptSigner())
        let bob = try MemoryNode("bob", capabilities: [])
        let id = try await Self.accepted(alice, bob)
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("the session is gone") { alice.link.session(with: bob.id) == nil }
        _ = try await alice.engine.settle(paymentID: id)
        #expect(try await alice.database.outbox(peerID: bob.id).count == 1, "queued: the peer's daemon is unknown")
        MemoryLink.connect(alice.link, bob.link)
        // A request sent afterwards goes out on the new session after the outbox flush.
        _ = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "next", category: nil, expiresIn: 600, wait: .seconds(10))
        #expect(try await alice.database.outbox(peerID: bob.id).isEmpty)
        #expect(try await bob.database.payment(id: id)?.state == .accepted)
        await alice.stop()
        await bob.stop()
    }

    @Test("a payee without the receipts capability: the payer's paid is refused and nothing changes")
    func payeeWithoutReceipts() async throws {
        let alice = try MemoryNode("alice", capabilities: [])
        let bob = try MemoryNode("bob")
        let id = try await Self.accepted(alice, bob)
        await #expect(throws: EngineError.self) {
            try await bob.engine.markPaid(paymentID: id, method: .cash, reference: nil)
        }
        #expect(try await bob.database.payment(id: id)?.state == .accepted)
        await alice.stop()
        await bob.stop()
    }

    /// How a payee's receipt departs from the payment as the payer holds it (T-RECEIPT-TERMS).
    enum Bend: String, CaseIterable, Sendable {
        case none, acceptedAfterSettled, settledLater, acceptedEarlier, foreignMethod, foreignReference, noReference
        case foreignPayerName

        /// The refusal's words, nil when the receipt is kept.
        var refusal: String? {
            switch self {
            case .none: nil
            case .acceptedAfterSettled: "accepted after it was settled"
            case .settledLater: "settled after it arrived"
            case .acceptedEarlier: "accepted before this side accepted"
            case .foreignMethod, .foreignReference, .noReference: "method or reference"
            case .foreignPayerName: "names the payer"
            }
        }

        func apply(to terms: inout Receipt, now: Timestamp) {
            switch self {
            case .none: break
            case .acceptedAfterSettled:  // the review's receipt: settled 2019, accepted 2030
                terms.acceptedAt = Timestamp(secondsSince1970: 1_893_456_000)
                terms.settledAt = Timestamp(secondsSince1970: 1_546_300_800)
            case .settledLater: terms.settledAt = now.adding(seconds: Limits.maxClockSkew + 60)
            case .acceptedEarlier: terms.acceptedAt = now.adding(seconds: -(Limits.maxClockSkew + 600))
            case .foreignMethod: terms.method = .cash
            case .foreignReference: terms.reference = "SPEI 9999"
            case .noReference: terms.reference = nil
            case .foreignPayerName: terms.payerName = "carol"
            }
        }
    }

    /// The payer keeps a receipt only with its own paid's method and reference, its own name, and times within the
    /// payment's life; a refusal is recorded with its reason.
    @Test("a receipt is kept only with the payer's own terms; a refusal is recorded", arguments: Bend.allCases)
    func receiptTerms(_ bend: Bend) async throws {
        let signer = ReceiptSigner()
        let (alice, bob) = (try MemoryNode("alice", signer: signer), try MemoryNode("bob"))
        let id = try await Self.accepted(alice, bob)
        _ = try await bob.engine.markPaid(paymentID: id, method: .transfer, reference: "SPEI 0042", wait: .seconds(10))
        let now = Timestamp.now
        var terms = Receipt(
            paymentID: id, payeeID: alice.id, payeeName: "alice", payerID: bob.id, payerName: "bob",
            amount: try pesos(), memo: "tacos", category: "food", acceptedAt: now, settledAt: now, method: .transfer,
            reference: "SPEI 0042", quote: nil, payeeKey: signer.publicKeyDER)
        bend.apply(to: &terms, now: now)
        let signed = try SignedReceipt.sign(terms, with: signer)
        await bob.engine.receive(
            .settle(.init(messageID: UUID(), paymentID: id, receipt: signed.text)), from: alice.id)
        await eventually("the payer is settled") { (try? await bob.database.payment(id: id))?.state == .settled }
        let stored = try #require(try await bob.database.payment(id: id))
        let recorded = try await bob.database.events(paymentID: id).compactMap(\.detail).filter {
            $0.hasPrefix(PaymentEngine.receiptRefusedPrefix)
        }
        if let refusal = bend.refusal {
            #expect(stored.receipt == nil, "kept a receipt with \(bend)")
            #expect(recorded.count == 1 && recorded.allSatisfy { $0.contains(refusal) }, "\(recorded)")
        } else {
            #expect(stored.receipt == signed.text && recorded.isEmpty, "\(recorded)")
        }
        await alice.stop()
        await bob.stop()
    }

    @Test("a forged receipt in a settle frame is not kept; the settlement still is")
    func forgedReceipt() async throws {
        let (alice, bob) = (try MemoryNode("alice", signer: ReceiptSigner()), try MemoryNode("bob"))
        let id = try await Self.accepted(alice, bob)
        // Someone else's key signs terms naming this payment: the key does not hash to Alice's ID.
        let mallory = ReceiptSigner()
        let terms = Receipt(
            paymentID: id, payeeID: mallory.peerID, payeeName: "alice", payerID: bob.id, payerName: "bob",
            amount: try pesos(), memo: "tacos", category: "food", acceptedAt: .now, settledAt: .now, method: nil,
            reference: nil, quote: nil, payeeKey: mallory.publicKeyDER)
        let forged = try SignedReceipt.sign(terms, with: mallory)
        await bob.engine.receive(
            .settle(.init(messageID: UUID(), paymentID: id, receipt: forged.text)), from: alice.id)
        await eventually("the payer is settled") { (try? await bob.database.payment(id: id))?.state == .settled }
        #expect(try await bob.database.payment(id: id)?.receipt == nil)
        await alice.stop()
        await bob.stop()
    }
}
