import Foundation
import InterPayCore
import InterPayEngine
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

@Suite("Settlement and receipts over TLS sessions", .tearsDown, .serialized)
struct ReceiptSessionTests {
    static let withReceipts = [PaymentMessage.Pairing.capability, PaymentMessage.receiptsCapability]

    @Test("the receipt is signed with the TLS identity key: its key hashes to the payee's peer ID; both sides store it")
    func receiptOverTLS() async throws {
        let alice = try await Node.testing(name: "alice", capabilities: Self.withReceipts)
        let bob = try await Node.testing(name: "bob", capabilities: Self.withReceipts)
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        #expect(TransportLink(sessions: alice.sessions).session(with: bob.id)?.supportsReceipts == true)
        let record = try await alice.engine.request(
            from: bob.id, amount: Money(minorUnits: 1_250, currency: try CurrencyCode("MXN")), memo: "tacos",
            category: nil, expiresIn: 600, wait: .seconds(10))
        _ = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        let paid = try await bob.engine.markPaid(
            paymentID: record.id, method: .cash, reference: nil, wait: .seconds(10))
        #expect(paid.state == .paid && paid.confirmed)
        let settled = try await alice.engine.settle(paymentID: record.id)
        let text = try #require(settled.receipt)
        let receipt = try SignedReceipt(verifying: text).receipt
        #expect(receipt.payeeID == alice.id && PeerID(subjectPublicKeyInfoDER: receipt.payeeKey) == alice.id)
        #expect(receipt.payerName == "bob" && receipt.method == .cash)
        await eventually("bob stores the same receipt") {
            (try? await bob.database.payment(id: record.id))?.receipt == text
        }
        await alice.stop()
        await bob.stop()
    }

    @Test("a payer announcing no receipts capability completes request → accept; the payee's received is refused")
    func peerWithoutTheCapability() async throws {
        let alice = try await Node.testing(name: "alice", capabilities: Self.withReceipts)
        let bob = try await Node.testing(name: "bob")
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        #expect(TransportLink(sessions: alice.sessions).session(with: bob.id)?.supportsReceipts == false)
        let record = try await alice.engine.request(
            from: bob.id, amount: Money(minorUnits: 500, currency: try CurrencyCode("EUR")), memo: "", category: nil,
            expiresIn: 600, wait: .seconds(10))
        let accepted = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        #expect(accepted.state == .accepted && accepted.confirmed)
        // Settled on alice's side alone, bob could never be told nor get the receipt (T-CAPS): refused.
        do {
            _ = try await alice.engine.settle(paymentID: record.id)
            Issue.record("settled towards a payer without receipts")
        } catch {
            #expect(String(describing: error).contains("does not support settlement"))
        }
        #expect(try await alice.database.payment(id: record.id)?.state == .accepted)
        #expect(try await alice.database.outbox(peerID: bob.id).isEmpty)
        #expect(try await bob.database.payment(id: record.id)?.state == .accepted)
        await alice.stop()
        await bob.stop()
    }
}
