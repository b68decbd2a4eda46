import InterPayCore
import Testing

@testable import InterPayDaemon

@Suite("Pairing commit rate limit")
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
}
