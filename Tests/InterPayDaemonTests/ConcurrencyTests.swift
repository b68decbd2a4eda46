import Foundation
import InterPayCore
import InterPayEngine
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// Steps on one payment that arrive at the same moment — a local decision and a peer's frame, or two local
/// decisions — end in one state, the same one the peer was told.
@Suite("Concurrent steps on one payment", .tearsDown, .serialized)
struct ConcurrencyTests {
    static let rounds = 12

    static func connect(_ engine: Node, _ peer: ScriptedPeer) async {
        await peer.sessions.maintainConnection(
            key: "engine", host: "127.0.0.1", port: engine.port, expectedPeerID: engine.id)
        await eventually("a session") {
            let up = await engine.sessions.currentSessions()
            return peer.isUp && !up.isEmpty
        }
    }

    @Test("a payee's cancel racing the payer's accept: the payee's ledger ends as its ack to the payer said")
    func cancelRacesAccept() async throws {
        let alice = try await Node.testing(name: "alice")  // payee, real engine
        let bob = try await ScriptedPeer(name: "bob")  // payer, scripted
        await Self.connect(alice, bob)
        for _ in 0..<Self.rounds {
            let record = try await alice.engine.request(
                from: bob.id, amount: Money(minorUnits: 500, currency: CurrencyCode("EUR")), memo: "", category: nil,
                expiresIn: 900)
            let accept = PaymentMessage.Decision(messageID: UUID(), paymentID: record.id)
            // The cancel may win or lose (conflict); either way the ledger must match what bob is told.
            async let cancelled = try? alice.engine.decide(.cancel, paymentID: record.id, wait: .zero)
            #expect(await bob.sessions.send(.accept(accept), to: alice.id))
            _ = await cancelled
            await eventually("alice answers the accept") { !bob.acks(for: accept.messageID).isEmpty }
            let told = try #require(bob.acks(for: accept.messageID).first)
            let final = try #require(try await alice.database.payment(id: record.id))
            #expect(final.state == told.state, "alice told bob \(told.state) but recorded \(final.state)")
            #expect([.accepted, .cancelled].contains(final.state))
        }
        await bob.stop()
        await alice.stop()
    }

    @Test("a payer's accept and reject at the same moment: one wins, and only its frame is sent")
    func acceptRacesReject() async throws {
        let bob = try await Node.testing(name: "bob")  // payer, real engine
        let alice = try await ScriptedPeer(name: "alice")  // payee, scripted
        await Self.connect(bob, alice)
        for _ in 0..<Self.rounds {
            let now = Timestamp.now
            let payment = try PaymentRequest(
                id: UUID(), payee: alice.id, payer: bob.id,
                amount: Money(minorUnits: 700, currency: CurrencyCode("EUR")),
                memo: "", category: nil, createdAt: now, expiresAt: now.adding(seconds: 900))
            let request = PaymentMessage.Request(messageID: UUID(), payment: payment)
            #expect(await alice.sessions.send(.request(request), to: bob.id))
            await eventually("bob has the request") { !alice.acks(for: request.messageID).isEmpty }

            async let accepted = try? bob.engine.decide(.accept, paymentID: payment.id, wait: .zero)
            async let rejected = try? bob.engine.decide(.reject(reason: nil), paymentID: payment.id, wait: .zero)
            let outcomes = await [accepted, rejected].compactMap { $0 }
            #expect(outcomes.count == 1, "exactly one decision is taken, the other is refused")
            let final = try #require(try await bob.database.payment(id: payment.id))
            #expect([.accepted, .rejected].contains(final.state))
            await eventually("alice receives bob's decision") {
                alice.messages.contains { message in
                    switch message {
                    case .accept(let decision): decision.paymentID == payment.id
                    case .reject(let rejection): rejection.paymentID == payment.id
                    default: false
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            let decisions = alice.messages.filter { message in
                switch message {
                case .accept(let decision): decision.paymentID == payment.id
                case .reject(let rejection): rejection.paymentID == payment.id
                default: false
                }
            }
            #expect(decisions.count == 1, "only the winning decision reaches the payee")
            if case .accept = decisions.first {
                #expect(final.state == .accepted)
            } else {
                #expect(final.state == .rejected)
            }
        }
        await alice.stop()
        await bob.stop()
    }
}
