import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayTransport

/// Which session makes room for a new one (`EvictionPolicy`): never a protected one, first from the address that
/// holds the most, there the idlest.
@Suite("Eviction policy", .tearsDown)
struct EvictionPolicyTests {
    static let t0 = ContinuousClock.now

    static func session(
        _ name: String, _ host: String, idleFor seconds: Int, protected: Bool = false
    ) -> EvictionPolicy.Candidate {
        EvictionPolicy.Candidate(
            peerID: PeerID(subjectPublicKeyInfoDER: Array(name.utf8)), host: host,
            lastUsed: t0 - .seconds(seconds), isProtected: protected)
    }

    @Test("the address holding the most sessions loses one first, even when another session is idler")
    func busiestAddressFirst() {
        let honest = Self.session("bob", "198.18.0.2", idleFor: 600)
        let flood = (0..<5).map { Self.session("fresh\($0)", "198.18.0.9", idleFor: $0) }
        let victim = EvictionPolicy.victim(among: [honest] + flood)
        #expect(victim == flood[4].peerID, "the idlest of the busiest address")
    }

    @Test("a session being paired over, or a preferred one, is never evicted")
    func protectedNever() {
        let pairing = Self.session("bob", "198.18.0.9", idleFor: 900, protected: true)
        let fresh = Self.session("fresh", "198.18.0.9", idleFor: 1)
        #expect(EvictionPolicy.victim(among: [pairing, fresh]) == fresh.peerID)
        #expect(EvictionPolicy.victim(among: [pairing]) == nil)
    }

    @Test("with one session per address, the idlest goes")
    func idlestAmongEquals() {
        let sessions = (0..<4).map { Self.session("peer\($0)", "198.18.0.\($0 + 1)", idleFor: $0 * 10) }
        #expect(EvictionPolicy.victim(among: sessions) == sessions[3].peerID)
    }

    @Test("an address's count includes its protected sessions")
    func countsAllSessions() {
        let protected = (0..<3).map { Self.session("paired\($0)", "198.18.0.5", idleFor: 0, protected: true) }
        let there = Self.session("there", "198.18.0.5", idleFor: 1)
        let elsewhere = (0..<2).map { Self.session("else\($0)", "198.18.0.6", idleFor: 100) }
        #expect(EvictionPolicy.victim(among: protected + [there] + elsewhere) == there.peerID)
    }

    @Test("a session's host is its address without the port")
    func host() {
        let info = SessionInfo(
            peerID: PeerID(subjectPublicKeyInfoDER: [1]), name: "x", version: 1, remoteAddress: "198.18.0.7:7420",
            direction: .inbound, since: .init(), capabilities: [], serial: 1)
        #expect(info.host == "198.18.0.7")
    }
}
