import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

@Suite("Split bills over an in-memory link", .tearsDown, .serialized)
struct BillEngineTests {
    static let withBills = [PaymentMessage.receiptsCapability, BillLink.capability]

    static func connect(_ alice: MemoryNode, _ others: [MemoryNode]) async {
        for other in others { MemoryLink.connect(alice.link, other.link) }
        await eventually("alice holds every session") { others.allSatisfy { alice.link.session(with: $0.id) != nil } }
    }

    @Test("90.00 among three, one without bills: it gets a plain request; two accept, one rejects: partial, 30 left")
    func splitAmongThree() async throws {
        let alice = try MemoryNode("alice", capabilities: Self.withBills)
        let bob = try MemoryNode("bob", capabilities: Self.withBills)
        let carol = try MemoryNode("carol", capabilities: Self.withBills)
        let dave = try MemoryNode("dave", capabilities: [PaymentMessage.receiptsCapability])
        await Self.connect(alice, [bob, carol, dave])
        let total = Money(minorUnits: 90_00, currency: try CurrencyCode("EUR"))
        let shares = try BillSplit.even(total, payers: 3)
        let (bill, made) = try await alice.engine.split(
            payers: [bob.id, carol.id, dave.id], shares: shares, total: total, memo: "dinner", category: nil,
            expiresIn: 600)
        #expect(made.map(\.amountMinor) == [30_00, 30_00, 30_00] && made.allSatisfy { $0.billID == bill.id })
        #expect(made.map(\.billIndex) == [0, 1, 2])
        for (node, linked) in [(bob, true), (carol, true), (dave, false)] {
            let share = try #require(made.first { $0.peerID == node.id })
            await eventually("\(node.link.name) holds its share") {
                (try? await node.database.payment(id: share.id))?.state == .pending
            }
            let theirs = try #require(try await node.database.payment(id: share.id))
            #expect((theirs.billID == bill.id) == linked && (theirs.billPayers == 3) == linked, "\(node.link.name)")
        }
        _ = try await bob.engine.decide(.accept, paymentID: made[0].id, wait: .seconds(10))
        _ = try await carol.engine.decide(.accept, paymentID: made[1].id, wait: .seconds(10))
        _ = try await dave.engine.decide(.reject(reason: "I had water"), paymentID: made[2].id, wait: .seconds(10))
        let view = try #require(try await alice.database.billViews(id: bill.id).first)
        #expect(view.state == .partial && view.shares.map(\.record.state) == [.accepted, .accepted, .rejected])
        for node in [alice, bob, carol, dave] { await node.stop() }
    }

    @Test(
        "cancelling a bill cancels its pending shares and keeps what was accepted; a payer without a session refuses it all"
    )
    func cancelAndRefusals() async throws {
        let alice = try MemoryNode("alice", capabilities: Self.withBills)
        let bob = try MemoryNode("bob", capabilities: Self.withBills)
        let carol = try MemoryNode("carol", capabilities: Self.withBills)
        let away = try MemoryNode("away", capabilities: Self.withBills)
        await Self.connect(alice, [bob, carol])
        let total = Money(minorUnits: 10_00, currency: try CurrencyCode("EUR"))
        let shares = try BillSplit.even(total, payers: 2)
        await #expect(throws: EngineError.self) {
            try await alice.engine.split(
                payers: [bob.id, away.id], shares: shares, total: total, memo: "", category: nil, expiresIn: 600)
        }
        #expect(try await alice.database.billViews().isEmpty, "nothing of a refused bill is stored")
        await #expect(throws: EngineError.self) {
            try await alice.engine.split(
                payers: [bob.id, bob.id], shares: shares, total: total, memo: "", category: nil, expiresIn: 600)
        }
        let (bill, made) = try await alice.engine.split(
            payers: [bob.id, carol.id], shares: shares, total: total, memo: "taxi", category: nil, expiresIn: 600)
        await eventually("bob holds his share") { (try? await bob.database.payment(id: made[0].id)) != nil }
        _ = try await bob.engine.decide(.accept, paymentID: made[0].id, wait: .seconds(10))
        let after = try await alice.engine.cancelBill(bill.id)
        #expect(after.map(\.state) == [.accepted, .cancelled])
        await eventually("carol's share is cancelled on her side") {
            (try? await carol.database.payment(id: made[1].id))?.state == .cancelled
        }
        let view = try #require(try await alice.database.billViews(id: bill.id).first)
        #expect(view.state == .partial && view.bill.cancelledAt != nil)
        for node in [alice, bob, carol, away] { await node.stop() }
    }
}
