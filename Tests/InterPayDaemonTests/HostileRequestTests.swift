import Foundation
import GRDB
import InterPayCore
import InterPayEngine
import InterPayStore
import InterPayTestSupport
import Synchronization
import Testing

@testable import InterPayDaemon

/// Requests a hostile payee can build: expired on arrival, dated in the future, living for ever, reusing the ID of a
/// payment that is not theirs; and `accept_from = paired` as one step (SECURITY.md, "Ledger growth" and "Payment
/// IDs").
@Suite("Hostile requests in the engine", .tearsDown, .serialized)
struct HostileRequestTests {
    /// Bob's engine and a scripted alice with a session to it.
    static func pair(acceptFrom: AcceptPolicy = .any) async throws -> (Node, ScriptedPeer) {
        let bob = try await Node.testing(name: "bob", acceptFrom: acceptFrom)
        let alice = try await ScriptedPeer(name: "alice")
        await alice.sessions.maintainConnection(key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        await eventually("a session between alice and bob") {
            let bobSees = await bob.sessions.currentSessions()
            return alice.isUp && !bobSees.isEmpty
        }
        return (bob, alice)
    }

    static func request(
        _ alice: ScriptedPeer, to bob: Node, id: UUID = UUID(), createdAt: Timestamp = .now,
        lifetime: Int64 = 900
    ) throws -> PaymentMessage.Request {
        let payment = try PaymentRequest(
            id: id, payee: alice.id, payer: bob.id, amount: Money(minorUnits: 90_000, currency: CurrencyCode("EUR")),
            memo: "rent", category: nil, createdAt: createdAt, expiresAt: createdAt.adding(seconds: lifetime))
        return .init(messageID: UUID(), payment: payment)
    }

    @Test("a request expired on arrival is answered expired (AEXR) and never stored, every time it comes")
    func expiredOnArrival() async throws {
        let (bob, alice) = try await Self.pair()
        let frame = try Self.request(alice, to: bob, createdAt: Timestamp.now.adding(seconds: -1_000))
        for attempt in 1...2 {
            #expect(await alice.sessions.send(.request(frame), to: bob.id))
            await eventually("bob answers attempt \(attempt)") { alice.acks(for: frame.messageID).count == attempt }
        }
        #expect(
            alice.acks(for: frame.messageID).allSatisfy { $0.state == .expired && $0.reasonCode == .alreadyExpired })
        #expect(try await bob.database.payment(id: frame.payment.id) == nil)
        #expect(try await bob.database.seenMessage(id: frame.messageID, from: alice.id) == nil)
        await alice.stop()
        await bob.stop()
    }

    @Test("createdAt far ahead of the receiver's clock, or a lifetime over 30 days, is refused and not stored")
    func timeBounds() async throws {
        let (bob, alice) = try await Self.pair()
        let future = try Self.request(alice, to: bob, createdAt: Timestamp.now.adding(seconds: 86_400 * 365))
        let forever = try Self.request(alice, to: bob, lifetime: Limits.maxRequestLifetime + 60)
        let skewed = try Self.request(alice, to: bob, createdAt: Timestamp.now.adding(seconds: 60))
        for frame in [future, forever, skewed] {
            #expect(await alice.sessions.send(.request(frame), to: bob.id))
        }
        await eventually("bob answers all three") {
            !alice.errors(for: future.messageID).isEmpty && !alice.errors(for: forever.messageID).isEmpty
                && !alice.acks(for: skewed.messageID).isEmpty
        }
        #expect(alice.errors(for: future.messageID).first?.message.contains("createdAt") == true)
        #expect(alice.errors(for: forever.messageID).first?.message.contains("expiresAt") == true)
        #expect(try await bob.database.payment(id: future.payment.id) == nil)
        #expect(try await bob.database.payment(id: forever.payment.id) == nil)
        // A clock a minute ahead is within the allowed skew.
        #expect(alice.acks(for: skewed.messageID).first?.state == .pending)
        await alice.stop()
        await bob.stop()
    }

    @Test("a request reusing the ID of bob's own request to alice is refused, not acked with its state")
    func ownPaymentID() async throws {
        let (bob, alice) = try await Self.pair()
        let ours = try await bob.engine.request(
            from: alice.id, amount: Money(minorUnits: 500, currency: CurrencyCode("EUR")), memo: "lunch",
            category: nil, expiresIn: 900)
        let frame = try Self.request(alice, to: bob, id: ours.id)
        #expect(await alice.sessions.send(.request(frame), to: bob.id))
        await eventually("bob answers") { !alice.errors(for: frame.messageID).isEmpty }
        #expect(alice.errors(for: frame.messageID).first?.code == .notAuthorized)
        #expect(alice.acks(for: frame.messageID).isEmpty)
        #expect(try await bob.database.payment(id: ours.id)?.role == .payee)
        await alice.stop()
        await bob.stop()
    }

    @Test("accept_from = paired: the request is committed already rejected, in one transaction with its ack")
    func acceptFromPairedIsOneStep() async throws {
        let (bob, alice) = try await Self.pair(acceptFrom: .paired)
        // Every committed transaction that touches payments, as the states it leaves behind.
        let writer = try #require(bob.database.reader as? any DatabaseWriter)
        let seen = Mutex<[[PaymentState]]>([])
        let observation = DatabaseRegionObservation(tracking: Table("payment"))
        let failures = Mutex<[String]>([])
        let cancellable = observation.start(
            in: writer, onError: { error in failures.withLock { $0.append("\(error)") } },
            onChange: { db in
                // Runs in the writer's access right after each commit, so it sees each transaction's outcome.
                do {
                    let states = try PaymentRecord.fetchAll(db).map(\.state)
                    seen.withLock { $0.append(states) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            })
        let frame = try Self.request(alice, to: bob)
        #expect(await alice.sessions.send(.request(frame), to: bob.id))
        await eventually("alice receives the ack and the rejection") {
            !alice.acks(for: frame.messageID).isEmpty
                && alice.messages.contains { if case .reject = $0 { true } else { false } }
        }
        cancellable.cancel()
        #expect(failures.withLock { $0 }.isEmpty)
        let commits = seen.withLock { $0 }
        #expect(commits.first == [.rejected], "\(commits)")
        #expect(!commits.contains([.pending]), "a pending request from an unpaired peer was committed: \(commits)")
        let record = try #require(try await bob.database.payment(id: frame.payment.id))
        #expect(record.state == .rejected && record.reason == PaymentEngine.notPairedReason)
        #expect(alice.acks(for: frame.messageID).first?.state == .pending)
        await alice.stop()
        await bob.stop()
    }
}
