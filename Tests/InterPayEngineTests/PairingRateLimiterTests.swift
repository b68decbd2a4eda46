import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

@Suite("Pairing commit rate limit", .tearsDown)
struct PairingRateLimiterTests {
    static let alice = PeerID(subjectPublicKeyInfoDER: Array("alice-spki".utf8))
    static let bob = PeerID(subjectPublicKeyInfoDER: Array("bob-spki".utf8))

    @Test("a peer gets its burst, then one commit per interval")
    func perPeer() {
        var limiter = PairingRateLimiter()
        let t0 = ContinuousClock.now
        let admitted = (0..<10).filter { _ in limiter.admit(Self.alice, now: t0) }.count
        #expect(admitted == Int(limiter.peerBurst))
        let admitted1 = limiter.admit(Self.alice, now: t0 + .seconds(1))
        #expect(!admitted1)
        let admitted2 = limiter.admit(Self.alice, now: t0 + .seconds(5))
        #expect(admitted2)
        let admitted3 = limiter.admit(Self.alice, now: t0 + .seconds(5))
        #expect(!admitted3)
        // Another peer has a budget of its own.
        let admitted4 = limiter.admit(Self.bob, now: t0 + .seconds(5))
        #expect(admitted4)
    }

    @Test("every attempt a user may make before the lock fits its peer's budget, in a row, sessions coming up again")
    func attemptsBeforeTheLock() {
        var limiter = PairingRateLimiter()
        let t0 = ContinuousClock.now
        // Each attempt: the peer's first commit (before our user started), the one it sends again with its reveal,
        // and one more when a session comes up again. Before the fix the sixth was the last admitted: a third
        // attempt right after two wrong codes waited for a commit that had been dropped.
        let perAttempt = [false, true, true]
        var admitted = 0
        for attempt in 0..<PairingMachine.maxFailures {
            for (index, solicited) in perAttempt.enumerated() {
                let now = t0 + .milliseconds(100 * (3 * attempt + index))
                if limiter.admit(Self.alice, solicited: solicited, now: now) { admitted += 1 }
            }
        }
        #expect(admitted == 3 * PairingMachine.maxFailures)
        // And then the peer is held to one commit every interval again.
        let flood = (0..<10).filter { _ in limiter.admit(Self.alice, now: t0 + .seconds(1)) }.count
        #expect(flood == 0)
    }

    @Test("all peers together are bounded too")
    func total() {
        var limiter = PairingRateLimiter()
        let t0 = ContinuousClock.now
        var admitted = 0
        for index in 0..<100 {
            let peer = PeerID(subjectPublicKeyInfoDER: Array("peer-\(index)".utf8))
            if limiter.admit(peer, now: t0) { admitted += 1 }
        }
        #expect(admitted == Int(limiter.totalBurst))
        let fresh = PeerID(subjectPublicKeyInfoDER: Array("fresh".utf8))
        let admitted5 = limiter.admit(fresh, now: t0)
        #expect(!admitted5)
        let admitted6 = limiter.admit(fresh, now: t0 + .seconds(1))
        #expect(admitted6)
    }

    @Test("a solicited commit passes a flood of unsolicited ones: only its own peer's budget applies")
    func solicitedPassesTheFlood() {
        var limiter = PairingRateLimiter()
        let t0 = ContinuousClock.now
        // 400 fresh keys use up the shared budget at once.
        let strangers = (0..<400).filter { index in
            limiter.admit(PeerID(subjectPublicKeyInfoDER: Array("stranger-\(index)".utf8)), now: t0)
        }.count
        #expect(strangers == Int(limiter.totalBurst))
        // Bob, whose pairing the user started, is not held to it (before the fix: dropped).
        let solicited = limiter.admit(Self.bob, solicited: true, now: t0)
        #expect(solicited)
        let unsolicited = limiter.admit(Self.alice, now: t0)
        #expect(!unsolicited)
        // Bob's own budget still applies, and his solicited commits leave the shared budget alone.
        let bobs = (0..<10).filter { _ in limiter.admit(Self.bob, solicited: true, now: t0) }.count
        #expect(bobs == Int(limiter.peerBurst) - 1)
        let later = limiter.admit(Self.alice, now: t0 + .seconds(1))
        #expect(later)
    }

    @Test("'wants to pair' notices are bounded daemon-wide, and the next one says how many were held back")
    func noticeBudget() {
        var notices = PairingState.NoticeBudget()
        let t0 = ContinuousClock.now
        let shown = (0..<400).compactMap { _ in notices.admit(now: t0) }
        #expect(shown.count == Int(notices.burst))
        #expect(shown.allSatisfy { $0 == 0 })
        #expect(notices.admit(now: t0 + .seconds(1)) == nil)
        #expect(notices.admit(now: t0 + .seconds(7)) == 400 - Int(notices.burst) + 1)
    }
}
