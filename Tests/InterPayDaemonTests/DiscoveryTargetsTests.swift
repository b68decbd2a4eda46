import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// Spoofed DNS-SD announcements against the dial targets (SECURITY.md, "DNS-SD spoofing").
@Suite("Discovery dial targets", .tearsDown)
struct DiscoveryTargetsTests {
    let bob = PeerID(subjectPublicKeyInfoDER: Array("bob".utf8))
    let mallory = PeerID(subjectPublicKeyInfoDER: Array("mallory".utf8))

    func target(_ peer: PeerID, _ host: String, _ port: Int) -> DiscoveryTargets.Target {
        .init(peerID: peer, host: host, port: port)
    }

    @Test("the same instance name re-announced elsewhere adds a target and keeps the real one")
    func sameNameElsewhere() {
        var targets = DiscoveryTargets()
        let real = target(bob, "198.18.0.2", 7000)
        #expect(targets.resolved(instance: "bob", to: real) == [.maintain(real)])
        // Mallory re-announces "bob" with bob's ID at her own address, then with her own ID.
        let spoofID = target(bob, "198.18.0.66", 7000)
        let spoofKey = target(mallory, "198.18.0.66", 7000)
        #expect(targets.resolved(instance: "bob", to: spoofID) == [.maintain(spoofID)])
        #expect(targets.resolved(instance: "bob", to: spoofKey) == [.maintain(spoofKey)])
        #expect(targets.all.contains(real), "the real target is neither redirected nor stopped")
        #expect(real.key != spoofID.key && real.key != spoofKey.key)
    }

    @Test("a flood of announcements keeps at most a few targets per instance, dropping the oldest")
    func bounded() {
        var targets = DiscoveryTargets()
        var stopped: [String] = []
        for port in 1...20 {
            for command in targets.resolved(instance: "bob", to: target(mallory, "198.18.0.66", port)) {
                if case .stop(let target) = command { stopped.append(target.key) }
            }
        }
        #expect(targets.all.count == DiscoveryTargets.maxPerInstance)
        #expect(stopped.count == 20 - DiscoveryTargets.maxPerInstance)
    }

    @Test("an instance that disappears stops its targets, unless another instance still announces one")
    func disappearance() {
        var targets = DiscoveryTargets()
        let real = target(bob, "198.18.0.2", 7000)
        _ = targets.resolved(instance: "bob", to: real)
        _ = targets.resolved(instance: "bob (2)", to: real)
        #expect(targets.removed(instance: "bob").isEmpty, "still announced as 'bob (2)'")
        #expect(targets.removed(instance: "bob (2)") == [.stop(real)])
        #expect(targets.all.isEmpty)
        #expect(targets.removed(instance: "nobody").isEmpty)
    }

    @Test("200 fake instances pointing at one host make at most maxPerHost targets there; the first stay")
    func perHost() {
        var targets = DiscoveryTargets()
        let real = target(bob, "198.18.0.9", 7000)
        _ = targets.resolved(instance: "bob", to: real)
        var maintained = 1
        for index in 0..<200 {
            let fake = target(PeerID(subjectPublicKeyInfoDER: Array("fake \(index)".utf8)), "198.18.0.9", 7000)
            maintained += targets.resolved(instance: "fake \(index)", to: fake).count
        }
        #expect(maintained == DiscoveryTargets.maxPerHost)
        #expect(targets.all.count == DiscoveryTargets.maxPerHost)
        #expect(targets.all.contains(real), "announced first, kept")
        #expect(targets.refused == 200 - (DiscoveryTargets.maxPerHost - 1))
        // The real one announced again (a TXT change) is still dialed: it is not a new target.
        #expect(targets.resolved(instance: "bob", to: real) == [.maintain(real)])
        // Another host is not held back by this one.
        let other = target(mallory, "198.18.0.10", 7000)
        #expect(targets.resolved(instance: "mallory", to: other) == [.maintain(other)])
    }

    @Test("announcements from many hosts make at most maxTotal targets")
    func total() {
        var targets = DiscoveryTargets()
        for index in 0..<(DiscoveryTargets.maxTotal + 40) {
            let host = "198.18.\(index / 250).\(index % 250 + 1)"
            let fake = target(PeerID(subjectPublicKeyInfoDER: Array("fake \(index)".utf8)), host, 7000)
            _ = targets.resolved(instance: "fake \(index)", to: fake)
        }
        #expect(targets.all.count == DiscoveryTargets.maxTotal)
        #expect(targets.refused == 40)
        // Room again once an instance leaves.
        _ = targets.removed(instance: "fake 0")
        let late = target(bob, "198.19.0.1", 7000)
        #expect(targets.resolved(instance: "bob", to: late) == [.maintain(late)])
    }
}
