import Foundation
import InterPayCore
import InterPayEngine
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// PROTOCOL.md §9: a frame received again (same message ID) gets the stored answer again and changes nothing —
/// checked against a real engine and ledger over a real TLS session, with the other side scripted by hand.
@Suite("Replayed frames", .tearsDown, .serialized)
struct ReplayTests {
    @Test("a replayed request or ack gets the same answer again and changes nothing, also after the payment is final")
    func replay() async throws {
        let bob = try await Node.testing(name: "bob")
        let alice = try await ScriptedPeer(name: "alice")
        await alice.sessions.maintainConnection(key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        await eventually("a session between alice and bob") {
            let bobSees = await bob.sessions.currentSessions()
            return alice.isUp && !bobSees.isEmpty
        }

        // alice (payee) asks bob (payer) for 12.50 MXN.
        let now = Timestamp.now
        let payment = try PaymentRequest(
            id: UUID(), payee: alice.id, payer: bob.id, amount: Money(minorUnits: 1_250, currency: CurrencyCode("MXN")),
            memo: "tacos", category: nil, createdAt: now, expiresAt: now.adding(seconds: 900))
        let requestID = UUID()
        let request = PaymentMessage.request(.init(messageID: requestID, payment: payment))
        #expect(await alice.sessions.send(request, to: bob.id))
        await eventually("bob acks the request") { alice.acks(for: requestID).count == 1 }
        let firstAck = try #require(alice.acks(for: requestID).first)
        #expect(firstAck.state == .pending && firstAck.paymentID == payment.id)
        let eventsAfterRequest = try await bob.database.events(paymentID: payment.id)
        #expect(eventsAfterRequest.count == 1)

        // The same request frame again: the same ack, no second payment, no new event.
        #expect(await alice.sessions.send(request, to: bob.id))
        await eventually("bob answers the replay") { alice.acks(for: requestID).count == 2 }
        #expect(alice.acks(for: requestID).last == firstAck)
        #expect(try await bob.database.payments().count == 1)
        #expect(try await bob.database.events(paymentID: payment.id) == eventsAfterRequest)

        // bob accepts; alice, the authoritative payee, acks it as accepted.
        let tentative = try await bob.engine.decide(.accept, paymentID: payment.id, wait: .zero)
        #expect(tentative.state == .accepted && !tentative.confirmed)
        await eventually("alice receives bob's accept") {
            alice.messages.contains { if case .accept = $0 { true } else { false } }
        }
        let accept = try #require(
            alice.messages.lazy.compactMap { if case .accept(let accept) = $0 { accept } else { nil } }.first)
        let confirmation = PaymentMessage.ack(
            .init(ackedID: accept.messageID, paymentID: payment.id, state: .accepted, reasonCode: nil))
        #expect(await alice.sessions.send(confirmation, to: bob.id))
        await eventually("bob's accept is confirmed") {
            (try? await bob.database.payment(id: payment.id))?.confirmed == true
        }
        let settled = try #require(try await bob.database.payment(id: payment.id))
        let settledEvents = try await bob.database.events(paymentID: payment.id)

        // Replays once the payment is final: the confirmation ack again, then the original request again. Frames
        // of one session are handled in order, so the request's answer shows the ack was handled too.
        #expect(await alice.sessions.send(confirmation, to: bob.id))
        #expect(await alice.sessions.send(request, to: bob.id))
        await eventually("bob answers the second replay") { alice.acks(for: requestID).count == 3 }
        #expect(alice.acks(for: requestID).last == firstAck, "the stored answer, not a new one")
        let after = try #require(try await bob.database.payment(id: payment.id))
        #expect(after.state == .accepted && after.confirmed)
        #expect(after == settled)
        #expect(try await bob.database.events(paymentID: payment.id) == settledEvents)
        #expect(try await bob.database.payments().count == 1)

        await alice.stop()
        await bob.stop()
    }
}
