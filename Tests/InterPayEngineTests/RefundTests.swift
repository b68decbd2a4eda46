import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

@Suite("Refunds over an in-memory link", .tearsDown, .serialized)
struct RefundTests {
    static let both = [PaymentMessage.receiptsCapability, PaymentMessage.refundsCapability]

    /// 30.00 EUR.
    static func thirty() throws -> Money { Money(minorUnits: 30_00, currency: try CurrencyCode("EUR")) }

    /// Alice (payee, signing receipts) asks Bob for 30.00 EUR, Bob accepts and Alice settles; returns its ID.
    static func settled(_ alice: MemoryNode, _ bob: MemoryNode) async throws -> UUID {
        MemoryLink.connect(alice.link, bob.link)
        await eventually("both sides hold the session") {
            alice.link.session(with: bob.id) != nil && bob.link.session(with: alice.id) != nil
        }
        let record = try await alice.engine.request(
            from: bob.id, amount: try thirty(), memo: "shoes", category: "clothes", expiresIn: 600,
            wait: .seconds(10))
        _ = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        _ = try await alice.engine.settle(paymentID: record.id)
        await eventually("the settle frame was acknowledged") {
            (try? await alice.database.outbox(peerID: bob.id).isEmpty) == true
        }
        return record.id
    }

    @Test("10.00 then 20.00 of a settled 30.00: linked on both sides, receipts verify, a third refund is refused")
    func refundInTwoParts() async throws {
        let signer = ReceiptSigner()
        let alice = try MemoryNode("alice", signer: signer, capabilities: Self.both)
        let bob = try MemoryNode("bob", capabilities: Self.both)
        let id = try await Self.settled(alice, bob)
        let first = try await alice.engine.refund(paymentID: id, amount: "10.00", memo: "one shoe was scuffed")
        let second = try await alice.engine.refund(paymentID: id, amount: nil, memo: "returned")
        #expect(first.refundOf == id && second.refundOf == id)
        #expect(first.amountMinor == 10_00 && second.amountMinor == 20_00, "without an amount, all that is left")
        #expect(first.state == .settled && first.role == .payer && first.peerID == bob.id)
        await #expect(throws: EngineError.self) {
            try await alice.engine.refund(paymentID: id, amount: "0.01", memo: "")
        }
        for refund in [first, second] {
            let receipt = try SignedReceipt(verifying: try #require(refund.receipt)).receipt
            #expect(receipt.refundOf == id && receipt.paymentID == refund.id && receipt.payeeID == alice.id)
            #expect(receipt.payerID == bob.id && receipt.amount.minorUnits == refund.amountMinor)
            await eventually("bob holds the refund with its receipt") {
                (try? await bob.database.payment(id: refund.id))?.receipt == refund.receipt
            }
            let onBob = try #require(try await bob.database.payment(id: refund.id))
            #expect(onBob.refundOf == id && onBob.role == .payee && onBob.state == .settled && onBob.confirmed)
        }
        #expect(try await bob.database.refundTotals(of: id) == RefundTotals(count: 2, minor: 30_00))
        await eventually("both refund frames were acknowledged") {
            (try? await alice.database.outbox(peerID: bob.id).isEmpty) == true
        }
        // The original stays settled; the statistics net the refunds out on both sides.
        #expect(try await alice.database.payment(id: id)?.state == .settled)
        for (node, role) in [(alice, PaymentRole.payee), (bob, .payer)] {
            let rows = try await node.database.stats(groupBy: .currency)
            #expect(rows.map(\.role) == [role] && rows.map(\.count) == [1] && rows.map(\.totalMinor) == [0])
        }
        await alice.stop()
        await bob.stop()
    }

    @Test("refused: by the payer, of a pending payment, beyond what is left, a bad amount, towards an old peer")
    func refusals() async throws {
        let alice = try MemoryNode("alice", signer: ReceiptSigner(), capabilities: Self.both)
        let bob = try MemoryNode("bob", capabilities: Self.both)
        let id = try await Self.settled(alice, bob)
        await #expect(throws: EngineError.self) { try await bob.engine.refund(paymentID: id, amount: nil, memo: "") }
        await #expect(throws: EngineError.self) {
            try await alice.engine.refund(paymentID: id, amount: "30.01", memo: "")
        }
        await #expect(throws: EngineError.self) {
            try await alice.engine.refund(paymentID: id, amount: "1.001", memo: "")
        }
        let pending = try await alice.engine.request(
            from: bob.id, amount: try Self.thirty(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        await #expect(throws: EngineError.self) {
            try await alice.engine.refund(paymentID: pending.id, amount: nil, memo: "")
        }
        #expect(try await alice.database.refundTotals(of: id) == RefundTotals(count: 0, minor: 0))
        await alice.stop()
        await bob.stop()

        let shop = try MemoryNode("shop", signer: ReceiptSigner(), capabilities: Self.both)
        let old = try MemoryNode("old", capabilities: [PaymentMessage.receiptsCapability])
        let sale = try await Self.settled(shop, old)
        await #expect(throws: EngineError.self) { try await shop.engine.refund(paymentID: sale, amount: nil, memo: "") }
        #expect(try await shop.database.outbox(peerID: old.id).isEmpty)
        await shop.stop()
        await old.stop()
    }

    @Test(
        "a refund of an accepted payment crossing the payer's late paid: the original paid, the refund settled, both sides"
    )
    func refundCrossesPaid() async throws {
        let alice = try MemoryNode("alice", signer: ReceiptSigner(), capabilities: Self.both)
        let bob = try MemoryNode("bob", capabilities: Self.both)
        MemoryLink.connect(alice.link, bob.link)
        await eventually("both sides hold the session") { alice.link.session(with: bob.id) != nil }
        let record = try await alice.engine.request(
            from: bob.id, amount: try Self.thirty(), memo: "shoes", category: nil, expiresIn: 600, wait: .seconds(10))
        _ = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("the session is gone") { bob.link.session(with: alice.id) == nil }
        // Both act while apart: bob's paid and alice's refund cross when the session comes back (§8.7).
        let paid = try await bob.engine.markPaid(paymentID: record.id, method: .cash, reference: nil, wait: .zero)
        #expect(paid.state == .paid && !paid.confirmed)
        let refund = try await alice.engine.refund(paymentID: record.id, amount: "30.00", memo: "returned at once")
        MemoryLink.connect(alice.link, bob.link)
        await eventually("bob's paid is confirmed and he holds the refund") {
            let original = try? await bob.database.payment(id: record.id)
            let theirs = try? await bob.database.payment(id: refund.id)
            return original?.state == .paid && original?.confirmed == true && theirs?.state == .settled
        }
        #expect(try await alice.database.payment(id: record.id)?.state == .paid)
        #expect(try await alice.database.refundTotals(of: record.id) == RefundTotals(count: 1, minor: 30_00))
        #expect(try await bob.database.refundTotals(of: record.id) == RefundTotals(count: 1, minor: 30_00))
        await alice.stop()
        await bob.stop()
    }

    @Test("a refund given while the payer is away reaches it on the next session")
    func refundWhileAway() async throws {
        let alice = try MemoryNode("alice", signer: ReceiptSigner(), capabilities: Self.both)
        let bob = try MemoryNode("bob", capabilities: Self.both)
        let id = try await Self.settled(alice, bob)
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("the session is gone") { alice.link.session(with: bob.id) == nil }
        let refund = try await alice.engine.refund(paymentID: id, amount: "5", memo: "late")
        #expect(try await alice.database.outbox(peerID: bob.id).count == 1)
        MemoryLink.connect(alice.link, bob.link)
        await eventually("bob holds the refund") { (try? await bob.database.payment(id: refund.id)) != nil }
        await eventually("the refund frame was acknowledged") {
            (try? await alice.database.outbox(peerID: bob.id).isEmpty) == true
        }
        await alice.stop()
        await bob.stop()
    }
}
