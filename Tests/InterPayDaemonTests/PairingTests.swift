import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// Pairing between two real daemons' coordinators over a real TLS session, with their ledgers: the code, the trust
/// store, the lockout, expiry, and `accept_from = paired`.
@Suite("Pairing between daemons", .serialized)
struct PairingTests {
    @Test("both sides get the same code; the right code trusts the peer, durably, until untrusted")
    func pairAndUntrust() async throws {
        let alice = try await EngineHarness(name: "alice")
        let bob = try await EngineHarness(name: "bob")
        await alice.connect(to: bob)

        let started = try await alice.pairing.start(with: bob.id)
        #expect(started.phase == "code")
        let code = try #require(started.code)
        await eventually("bob has the code too") { await bob.pairing.status(of: alice.id).code != nil }
        #expect(await bob.pairing.status(of: alice.id).code == code, "both sides derive the same code")

        let record = try await bob.pairing.confirm(code, with: alice.id)
        #expect(record.peerID == alice.id && record.name == "alice")
        #expect(try await bob.database.trustedPeer(id: alice.id) != nil)
        #expect(try await alice.database.trustedPeer(id: bob.id) == nil, "alice has not confirmed yet")
        _ = try await alice.pairing.confirm(code, with: bob.id)
        #expect(await alice.pairing.isPaired(bob.id))

        // The trust store is the ledger: a new coordinator (a restart) still knows.
        let reopened = try AppDatabase(path: bob.databasePath)
        #expect(try await reopened.trustedPeer(id: alice.id)?.name == "alice")

        #expect(try await bob.pairing.untrust(alice.id))
        #expect(try await !bob.pairing.untrust(alice.id))
        #expect(await !bob.pairing.isPaired(alice.id))
        await alice.stop()
        await bob.stop()
    }

    @Test("three wrong codes lock pairing with that peer for ten minutes; then a new pairing works")
    func wrongCodesLock() async throws {
        let alice = try await EngineHarness(name: "alice")
        let bob = try await EngineHarness(name: "bob")
        await alice.connect(to: bob)
        let code = try #require(try await alice.pairing.start(with: bob.id).code)
        let wrong = try #require(PairingCode(userInput: code.digits == "111111" ? "222222" : "111111"))
        let now = Timestamp.now
        for remaining in ["2 tries left", "1 try left"] {
            let error = await errorText { _ = try await alice.pairing.confirm(wrong, with: bob.id, now: now) }
            #expect(error.contains("wrong verification code; \(remaining)"), "\(error)")
        }
        // The third wrong code locks.
        let third = await errorText { _ = try await alice.pairing.confirm(wrong, with: bob.id, now: now) }
        #expect(third.contains("locked"), "\(third)")
        #expect(await alice.pairing.status(of: bob.id, now: now).phase == "locked")
        let afterLock = await errorText { _ = try await alice.pairing.confirm(code, with: bob.id, now: now) }
        #expect(afterLock.contains("locked"), "even the right code: \(afterLock)")
        #expect(try await alice.database.trustedPeer(id: bob.id) == nil)
        // bob heard the abort: its code is gone.
        await eventually("bob's pairing was aborted") { await bob.pairing.status(of: alice.id).phase == "idle" }

        // Ten minutes later the lock lifts.
        let later = now.adding(seconds: PairingMachine.lockoutDuration)
        await alice.pairing.tick(now: later)
        #expect(await alice.pairing.status(of: bob.id, now: later).phase == "idle")
        let again = try await alice.pairing.start(with: bob.id)
        #expect(again.code != nil)
        await alice.stop()
        await bob.stop()
    }

    @Test("a code is refused once it has expired")
    func expiredCode() async throws {
        let alice = try await EngineHarness(name: "alice")
        let bob = try await EngineHarness(name: "bob")
        await alice.connect(to: bob)
        let code = try #require(try await alice.pairing.start(with: bob.id).code)
        let late = Timestamp.now.adding(seconds: PairingMachine.codeLifetime + 1)
        let error = await errorText { _ = try await alice.pairing.confirm(code, with: bob.id, now: late) }
        #expect(error.contains("no verification code"), "\(error)")
        #expect(try await alice.database.trustedPeer(id: bob.id) == nil)
        await alice.stop()
        await bob.stop()
    }

    @Test("accept_from = paired: a request from a peer not paired is rejected on both sides; once paired it is taken")
    func acceptFromPaired() async throws {
        let alice = try await EngineHarness(name: "alice")
        let bob = try await EngineHarness(name: "bob", acceptFrom: .paired)
        await alice.connect(to: bob)
        let amount = Money(minorUnits: 500, currency: try CurrencyCode("EUR"))
        let refused = try await alice.engine.request(
            from: bob.id, amount: amount, memo: "", category: nil, expiresIn: 600)
        await eventually("alice learns the request was rejected") {
            (try? await alice.database.payment(id: refused.id))?.state == .rejected
        }
        let onBob = try #require(try await bob.database.payment(id: refused.id))
        #expect(onBob.state == .rejected && onBob.reason == PaymentEngine.notPairedReason)
        #expect(try await alice.database.payment(id: refused.id)?.reason == PaymentEngine.notPairedReason)

        let code = try #require(try await bob.pairing.start(with: alice.id).code)
        _ = try await bob.pairing.confirm(code, with: alice.id)
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
