import Foundation
import InterPayCore
import InterPayEngine
import InterPayStore
import InterPayTestSupport
import Logging
import Testing

@testable import InterPayDaemon

/// Pairing between two real daemons' engines over a real TLS session, with their ledgers: the code, the trust
/// store, the rule that a daemon answers only once its user started, the lockout (and that it survives a restart),
/// expiry, older peers, and `accept_from = paired`.
@Suite("Pairing between daemons", .tearsDown, .serialized)
struct PairingTests {
    /// Whether `event` is one of pairing's.
    static func isPairing(_ event: EngineEvent) -> Bool {
        if case .pairing = event { true } else { false }
    }

    /// Both users start pairing, alice first; returns the code both sides show.
    static func bothStart(_ alice: Node, _ bob: Node) async throws -> PairingCode {
        let first = try await alice.engine.startPairing(with: bob.id)
        #expect(first.phase == .waiting, "bob's user has not started yet")
        await eventually("bob's daemon notices") { await bob.engine.pairingStatus(of: alice.id).phase == .requested }
        let second = try await bob.engine.startPairing(with: alice.id)
        #expect(second.phase == .code, "alice had started: bob's start gets the code at once")
        let code = try #require(second.code)
        await eventually("alice has the code too") { await alice.engine.pairingStatus(of: bob.id).code != nil }
        #expect(await alice.engine.pairingStatus(of: bob.id).code == code, "both sides derive the same code")
        return code
    }

    @Test("both users start; both get the same code; the right code trusts the peer, durably, until untrusted")
    func pairAndUntrust() async throws {
        let alice = try await Node.testing(name: "alice")
        let bob = try await Node.testing(name: "bob")
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        let code = try await Self.bothStart(alice, bob)

        let record = try await bob.engine.confirmPairing(code, with: alice.id)
        #expect(record.peerID == alice.id && record.name == "alice")
        #expect(try await bob.database.trustedPeer(id: alice.id) != nil)
        #expect(try await alice.database.trustedPeer(id: bob.id) == nil, "alice has not confirmed yet")
        _ = try await alice.engine.confirmPairing(code, with: bob.id)
        #expect(try await alice.database.trustedPeer(id: bob.id) != nil)
        #expect(await alice.engine.pairingStatus(of: bob.id).failures == 0, "a right code resets the count")

        // The trust store is the ledger: a new engine (a restart) still knows.
        let reopened = try AppDatabase(path: bob.databasePath)
        #expect(try await reopened.trustedPeer(id: alice.id)?.name == "alice")

        #expect(try await bob.engine.untrust(alice.id))
        #expect(try await !bob.engine.untrust(alice.id))
        #expect(try await bob.database.trustedPeer(id: alice.id) == nil)
        await alice.stop()
        await bob.stop()
    }

    @Test("a commit from a peer whose user has not started is not answered: the user is told, nothing is sent")
    func notAnsweredBeforeTheUserStarts() async throws {
        let alice = try await ScriptedPeer(name: "mallory")
        let bob = try await Node.testing(name: "bob")
        await alice.sessions.maintainConnection(key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        // Both ends: alice's commits go out only once her side holds the session too.
        await eventually("a session") {
            let bobSees = await bob.sessions.currentSessions().contains { $0.peerID == alice.id }
            let aliceSees = await alice.sessions.currentSessions().contains { $0.peerID == bob.id }
            return bobSees && aliceSees
        }
        var events = bob.engine.events.makeAsyncIterator()
        for _ in 0..<5 {
            let nonce = PairingCode.randomNonce()
            await alice.sessions.send(
                .pair(
                    .init(pairingID: UUID(), step: .commit, value: PairingCode.commitment(to: nonce, from: alice.id))),
                to: bob.id)
        }
        // Only once the status says so is the event sure to be in the stream: waiting on the stream for an event
        // that never came would hang the whole run instead of failing this test.
        let told = await eventually("bob's user is told") {
            await bob.engine.pairingStatus(of: alice.id).phase == .requested
        }
        guard told else {
            await alice.stop()
            await bob.stop()
            return
        }
        var event = await events.next()
        // Sessions' events come first; the first pairing event must be the request.
        while let next = event, !Self.isPairing(next) { event = await events.next() }
        guard case .pairing(.requested(let peer, _, _)) = event else {
            Issue.record("expected a pairing request event, got \(String(describing: event))")
            return
        }
        #expect(peer == alice.id)
        try await Task.sleep(for: .milliseconds(300))
        #expect(alice.messages.isEmpty, "nothing answered: \(alice.messages)")
        #expect(await bob.engine.pairingStatus(of: alice.id).failures == 0, "nothing was started, nothing counts")
        await alice.stop()
        await bob.stop()
    }

    @Test("a peer's second, different commit ends the attempt and counts; three failures lock, across a restart")
    func lockoutSurvivesRestart() async throws {
        let mallory = try await ScriptedPeer(name: "mallory")
        let bob = try await Node.testing(name: "bob")
        await mallory.sessions.maintainConnection(
            key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        await eventually("a session") { await bob.sessions.currentSessions().contains { $0.peerID == mallory.id } }
        func reveals() -> Int {
            mallory.messages.count { if case .pair(let frame) = $0 { frame.step == .reveal } else { false } }
        }
        for attempt in 1...PairingMachine.maxFailures {
            let status = try await bob.engine.startPairing(with: mallory.id)
            #expect(status.phase == .waiting)
            // Mallory answers bob's commit with a commit, gets bob's reveal, and tries again with another commit.
            for _ in 0..<2 {
                let nonce = PairingCode.randomNonce()
                await mallory.sessions.send(
                    .pair(
                        .init(
                            pairingID: UUID(), step: .commit,
                            value: PairingCode.commitment(to: nonce, from: mallory.id))),
                    to: bob.id)
            }
            await eventually("attempt \(attempt) ended") {
                let status = await bob.engine.pairingStatus(of: mallory.id)
                return status.phase == .idle || status.phase == .locked
            }
            await eventually("bob's reveal of attempt \(attempt) arrived") { reveals() >= attempt }
            #expect(reveals() == attempt, "one reveal per attempt the user started")
        }
        let locked = await bob.engine.pairingStatus(of: mallory.id)
        #expect(locked.phase == .locked)
        let refused = await errorText { _ = try await bob.engine.startPairing(with: mallory.id) }
        #expect(refused.contains("locked"), "\(refused)")

        // A restart: a new engine over the reopened ledger still refuses. The lock is written to the ledger
        // after the machine locks (before any frame leaves), so wait for that write first.
        let reopened = try AppDatabase(path: bob.databasePath)
        await eventually("the lock is in the ledger") {
            // An unreadable ledger reads as "not yet"; the wait then fails with its own message.
            (try? await reopened.pairingLockout(for: mallory.id))?.lockedUntil != nil
        }
        var logger = Logger(label: "test.bob.restarted")
        logger.logLevel = .critical
        let restarted = PaymentEngine(
            me: bob.id, database: reopened, link: TransportLink(sessions: bob.sessions), logger: logger)
        let status = await restarted.pairingStatus(of: mallory.id)
        #expect(status.phase == .locked && status.until == locked.until)
        let again = await errorText { _ = try await restarted.startPairing(with: mallory.id) }
        #expect(again.contains("locked"), "\(again)")
        // Ten minutes later the lock lifts, and the ledger forgets it.
        let later = try #require(locked.until)
        await restarted.tick(now: later)
        #expect(await restarted.pairingStatus(of: mallory.id, now: later).phase == .idle)
        #expect(try await reopened.pairingLockout(for: mallory.id) == nil)
        await mallory.stop()
        await bob.stop()
    }

    @Test("a wrong code ends the attempt and counts; the third failure locks")
    func wrongCodesLock() async throws {
        let alice = try await Node.testing(name: "alice")
        let bob = try await Node.testing(name: "bob")
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        for remaining in ["2 attempts left", "1 attempt left"] {
            let code = try await Self.bothStart(alice, bob)
            let wrong = try #require(PairingCode(userInput: code.digits == "111111" ? "222222" : "111111"))
            let error = await errorText { _ = try await alice.engine.confirmPairing(wrong, with: bob.id) }
            #expect(error.contains("wrong verification code") && error.contains(remaining), "\(error)")
            // bob hears the abort: his attempt ends too.
            await eventually("bob's attempt ended") { await bob.engine.pairingStatus(of: alice.id).phase == .idle }
        }
        let code = try await Self.bothStart(alice, bob)
        let wrong = try #require(PairingCode(userInput: code.digits == "111111" ? "222222" : "111111"))
        let third = await errorText { _ = try await alice.engine.confirmPairing(wrong, with: bob.id) }
        #expect(third.contains("locked"), "\(third)")
        #expect(await alice.engine.pairingStatus(of: bob.id).phase == .locked)
        let afterLock = await errorText { _ = try await alice.engine.confirmPairing(code, with: bob.id) }
        #expect(afterLock.contains("locked"), "even the right code: \(afterLock)")
        #expect(try await alice.database.trustedPeer(id: bob.id) == nil)
        await alice.stop()
        await bob.stop()
    }

    @Test("a code is refused once it has expired")
    func expiredCode() async throws {
        let alice = try await Node.testing(name: "alice")
        let bob = try await Node.testing(name: "bob")
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        let code = try await Self.bothStart(alice, bob)
        let late = Timestamp.now.adding(seconds: PairingMachine.codeLifetime + 1)
        let error = await errorText { _ = try await alice.engine.confirmPairing(code, with: bob.id, now: late) }
        #expect(error.contains("no verification code"), "\(error)")
        #expect(try await alice.database.trustedPeer(id: bob.id) == nil)
        #expect(await alice.engine.pairingStatus(of: bob.id, now: late).failures == 1, "the expired attempt counts")
        await alice.stop()
        await bob.stop()
    }

    @Test("pairing with a peer whose daemon lacks pairing-v2 fails at once with a clear error")
    func olderPeer() async throws {
        let alice = try await Node.testing(name: "alice")
        let old = try await Node.testing(name: "old", capabilities: [])
        #expect(await alice.connect(to: old), "a session between the two nodes")
        let error = await errorText { _ = try await alice.engine.startPairing(with: old.id, wait: .seconds(1)) }
        #expect(error.contains("does not support pairing-v2"), "\(error)")
        await alice.stop()
        await old.stop()
    }

    @Test("accept_from = paired: a request from a peer not paired is rejected on both sides; once paired it is taken")
    func acceptFromPaired() async throws {
        let alice = try await Node.testing(name: "alice")
        let bob = try await Node.testing(name: "bob", acceptFrom: .paired)
        #expect(await alice.connect(to: bob), "a session between the two nodes")
        let amount = Money(minorUnits: 500, currency: try CurrencyCode("EUR"))
        let refused = try await alice.engine.request(
            from: bob.id, amount: amount, memo: "", category: nil, expiresIn: 600)
        await eventually("alice learns the request was rejected") {
            (try? await alice.database.payment(id: refused.id))?.state == .rejected
        }
        let onBob = try #require(try await bob.database.payment(id: refused.id))
        #expect(onBob.state == .rejected && onBob.reason == PaymentEngine.notPairedReason)
        #expect(try await alice.database.payment(id: refused.id)?.reason == PaymentEngine.notPairedReason)

        let code = try await Self.bothStart(alice, bob)
        _ = try await bob.engine.confirmPairing(code, with: alice.id)
        let taken = try await alice.engine.request(
            from: bob.id, amount: amount, memo: "", category: nil, expiresIn: 600)
        await eventually("bob takes the request") { (try? await bob.database.payment(id: taken.id)) != nil }
        #expect(try await bob.database.payment(id: taken.id)?.state == .pending)
        await alice.stop()
        await bob.stop()
    }
}

/// The description of the error `body` throws, or "" if it throws none.
private func errorText(_ body: () async throws -> Void) async -> String {
    do {
        try await body()
        return ""
    } catch {
        return String(describing: error)
    }
}
