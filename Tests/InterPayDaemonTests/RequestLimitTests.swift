import Foundation
import InterPayCore
import InterPayEngine
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// The per-peer request limits in a real engine: a refused request gets `limit-exceeded` with its ref, is not
/// stored, and is not remembered as seen, so that the payee's resend succeeds once the limit allows it.
@Suite("Request limits in the engine", .tearsDown, .serialized)
struct RequestLimitTests {
    @Test("over the pending limit: limit-exceeded with ref, nothing stored; the resend succeeds after a cancel")
    func pendingLimit() async throws {
        let bob = try await Node.testing(name: "bob", requestLimits: .init(maxPending: 2, maxPerMinute: 600))
        let alice = try await ScriptedPeer(name: "alice")
        await alice.sessions.maintainConnection(key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        await eventually("a session between alice and bob") {
            let bobSees = await bob.sessions.currentSessions()
            return alice.isUp && !bobSees.isEmpty
        }
        func request() throws -> PaymentMessage.Request {
            let now = Timestamp.now
            let payment = try PaymentRequest(
                id: UUID(), payee: alice.id, payer: bob.id,
                amount: Money(minorUnits: 100, currency: CurrencyCode("EUR")), memo: "", category: nil,
                createdAt: now, expiresAt: now.adding(seconds: 900))
            return .init(messageID: UUID(), payment: payment)
        }
        let admitted = [try request(), try request()]
        for frame in admitted {
            #expect(await alice.sessions.send(.request(frame), to: bob.id))
            await eventually("bob acks a request") { alice.acks(for: frame.messageID).count == 1 }
        }

        let over = try request()
        #expect(await alice.sessions.send(.request(over), to: bob.id))
        await eventually("bob refuses the third") { !alice.errors(for: over.messageID).isEmpty }
        #expect(alice.errors(for: over.messageID).first?.code == .limitExceeded)
        #expect(alice.acks(for: over.messageID).isEmpty)
        #expect(try await bob.database.payment(id: over.payment.id) == nil)
        #expect(try await bob.database.seenMessage(id: over.messageID, from: alice.id) == nil)

        let cancelID = UUID()
        let cancel = PaymentMessage.cancel(.init(messageID: cancelID, paymentID: admitted[0].payment.id))
        #expect(await alice.sessions.send(cancel, to: bob.id))
        await eventually("bob acks the cancel") { alice.acks(for: cancelID).count == 1 }
        #expect(await alice.sessions.send(.request(over), to: bob.id))
        await eventually("bob acks the resent request") { alice.acks(for: over.messageID).count == 1 }
        #expect(alice.acks(for: over.messageID).first?.state == .pending)
        #expect(try await bob.database.payment(id: over.payment.id)?.state == .pending)

        await alice.stop()
        await bob.stop()
    }
}
