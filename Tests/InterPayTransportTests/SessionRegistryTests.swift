import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayTransport

/// The registry of sessions (`SessionRegistry`), the pure decider under `SessionManager`: a table of cases, then a
/// bounded exhaustive search of every sequence of registrations, removals and pairing marks over a small world,
/// checking the rules the type states after each step.
@Suite("Session registry", .tearsDown)
struct SessionRegistryTests {
    struct Fake: RegisteredSession, CustomStringConvertible {
        var peerID: PeerID
        var serial: UInt64
        var host: String
        var isInbound: Bool
        var dialer: PeerID
        var lastUsed: ContinuousClock.Instant
        var preferred: Bool
        var description: String { "#\(serial) \(host) \(isInbound ? "in" : "out")\(preferred ? " preferred" : "")" }
    }

    static let t0 = ContinuousClock.now
    static func peer(_ name: String) -> PeerID { PeerID(subjectPublicKeyInfoDER: Array(name.utf8)) }
    static let local = peer("local")

    /// A session with `peer` from `host`; its serial also orders when it was last used (a higher one more recently).
    static func session(
        _ peer: PeerID, serial: UInt64, host: String = "198.18.0.2", inbound: Bool = true, preferred: Bool = false,
        local: PeerID = local
    ) -> Fake {
        Fake(
            peerID: peer, serial: serial, host: host, isInbound: inbound, dialer: inbound ? peer : local,
            lastUsed: t0 + .seconds(Int(serial)), preferred: preferred)
    }

    @Test("a reconnect dialed by the same side replaces the session; the old one's removal is then a no-op")
    func reconnectReplaces() throws {
        var registry = SessionRegistry<Fake>(localPeer: Self.local, maxSessions: 4, sessionsPerAddress: 4)
        let bob = Self.peer("bob")
        let first = Self.session(bob, serial: 1)
        guard case .registered = registry.register(first) else { Issue.record("not registered"); return }
        let second = Self.session(bob, serial: 2)
        guard case .replaced(let old) = registry.register(second) else { Issue.record("not replaced"); return }
        #expect(old.serial == 1)
        let removedOld = registry.unregister(first)
        #expect(!removedOld, "the replaced session's end leaves the new one")
        #expect(registry[bob]?.serial == 2)
        let removedNew = registry.unregister(second)
        #expect(removedNew)
        #expect(registry.sessions.isEmpty)
    }

    @Test(
        "two crossing dials leave the same session on both ends: the one the lower ID dialed", arguments: [false, true])
    func crossingDials(reversed: Bool) {
        let (alice, bob) = (Self.peer("alice"), Self.peer("bob"))
        // The dial from Alice to Bob and the one from Bob to Alice, as each end sees them.
        let aliceDial = (
            atAlice: Self.session(bob, serial: 1, inbound: false, local: alice),
            atBob: Self.session(alice, serial: 1, inbound: true, local: bob)
        )
        let bobDial = (
            atAlice: Self.session(bob, serial: 2, inbound: true, local: alice),
            atBob: Self.session(alice, serial: 2, inbound: false, local: bob)
        )
        var atAlice = SessionRegistry<Fake>(localPeer: alice, maxSessions: 4, sessionsPerAddress: 4)
        var atBob = SessionRegistry<Fake>(localPeer: bob, maxSessions: 4, sessionsPerAddress: 4)
        // Each end may see the two in either order.
        for session in reversed ? [bobDial.atAlice, aliceDial.atAlice] : [aliceDial.atAlice, bobDial.atAlice] {
            _ = atAlice.register(session)
        }
        for session in reversed ? [aliceDial.atBob, bobDial.atBob] : [bobDial.atBob, aliceDial.atBob] {
            _ = atBob.register(session)
        }
        let lower = min(alice, bob)
        #expect(atAlice[bob]?.dialer == lower)
        #expect(atBob[alice]?.dialer == lower)
    }

    @Test("an inbound session from an address at its share evicts that address's session, not an idler one elsewhere")
    func addressBoundEvictsSameAddress() {
        var registry = SessionRegistry<Fake>(localPeer: Self.local, maxSessions: 8, sessionsPerAddress: 1)
        let idle = Self.session(Self.peer("idle"), serial: 1, host: "198.18.0.2")
        let flooder = Self.session(Self.peer("fresh1"), serial: 5, host: "198.18.0.9")
        _ = registry.register(idle)
        _ = registry.register(flooder)
        let next = Self.session(Self.peer("fresh2"), serial: 6, host: "198.18.0.9")
        guard case .evicted(let victim, .address) = registry.register(next) else {
            Issue.record("not evicted at the address bound")
            return
        }
        #expect(victim.serial == 5)
        #expect(registry[Self.peer("idle")] != nil)
    }

    @Test("at the bound with every session preferred or being paired over, the newcomer is refused")
    func protectedRefuses() {
        var registry = SessionRegistry<Fake>(localPeer: Self.local, maxSessions: 2, sessionsPerAddress: 4)
        let (carol, dave) = (Self.peer("carol"), Self.peer("dave"))
        _ = registry.register(Self.session(carol, serial: 1, preferred: true))
        _ = registry.register(Self.session(dave, serial: 2))
        registry.setPairing(true, for: dave)
        guard case .full(.total) = registry.register(Self.session(Self.peer("fresh"), serial: 3)) else {
            Issue.record("not refused")
            return
        }
        registry.setPairing(false, for: dave)
        guard case .evicted(let victim, .total) = registry.register(Self.session(Self.peer("fresh"), serial: 4)) else {
            Issue.record("not evicted once the pairing ended")
            return
        }
        #expect(victim.peerID == dave)
    }

    /// One step of the search.
    enum Step: CustomStringConvertible {
        case register(Fake)
        case unregister(PeerID)
        case pairing(PeerID, Bool)
        var description: String {
            switch self {
            case .register(let session): "register \(session.peerID.shortDescription) \(session)"
            case .unregister(let peer): "unregister \(peer.shortDescription)"
            case .pairing(let peer, let on): "pairing \(peer.shortDescription) \(on)"
            }
        }
    }

    @Test("every sequence of four steps over three peers and two addresses keeps the registry's rules")
    func exhaustiveSearch() {
        let peers = ["a", "b", "c"].map(Self.peer)
        let hosts = ["198.18.0.2", "198.18.0.3"]
        var steps: [Step] = []
        for peer in peers {
            for host in hosts {
                for inbound in [false, true] {
                    for preferred in [false, true] {
                        steps.append(
                            .register(Self.session(peer, serial: 0, host: host, inbound: inbound, preferred: preferred))
                        )
                    }
                }
            }
            steps += [.unregister(peer), .pairing(peer, true), .pairing(peer, false)]
        }
        /// The registry, and the number of the step being applied (each session's serial, and when it was last used).
        struct World {
            var registry: SessionRegistry<Fake>
            var step: UInt64 = 0
        }
        var outcomes: [String: Int] = [:]
        let root = World(registry: SessionRegistry(localPeer: Self.local, maxSessions: 2, sessionsPerAddress: 1))
        let (sequences, failures) = searchEverySequence(from: [root], steps: steps, depth: 4) { step, world in
            world.step += 1
            guard case .register(let template) = step else {
                return Self.apply(step, to: &world.registry, outcomes: &outcomes)
            }
            let session = Self.session(
                template.peerID, serial: world.step, host: template.host, inbound: template.isInbound,
                preferred: template.preferred)
            return Self.apply(.register(session), to: &world.registry, outcomes: &outcomes)
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(sequences == everySequenceCount(roots: 1, steps: steps.count, depth: 4))
        // The search reached every kind of outcome, so that none of the checks below is vacuous.
        for kind in [
            "registered", "replaced", "duplicate", "evicted address", "evicted total", "full address", "full total",
        ] {
            #expect((outcomes[kind] ?? 0) > 0, "no sequence ended \(kind)")
        }
    }

    /// Applies `step`, checking the rules against the registry before and after; a sentence when one is broken.
    static func apply(_ step: Step, to registry: inout SessionRegistry<Fake>, outcomes: inout [String: Int]) -> String?
    {
        let before = registry
        func isProtected(_ session: Fake) -> Bool { session.preferred || before.pairing.contains(session.peerID) }
        switch step {
        case .pairing(let peer, let on):
            registry.setPairing(on, for: peer)
            return registry.sessions.mapValues(\.serial) == before.sessions.mapValues(\.serial)
                ? nil : "sessions changed"
        case .unregister(let peer):
            guard let current = before[peer] else {
                return registry.unregister(Self.session(peer, serial: 0)) ? "removed nothing" : nil
            }
            guard registry.unregister(current), registry[peer] == nil,
                registry.sessions.count == before.sessions.count - 1
            else { return "the current session was not removed" }
            return nil
        case .register(let session):
            let outcome = registry.register(session)
            let after = registry
            let atHost = { (registry: SessionRegistry<Fake>) in
                registry.sessions.values.count { $0.host == session.host }
            }
            if after.sessions.count > after.maxSessions { return "\(after.sessions.count) sessions up" }
            if after.sessions.contains(where: { $0.key != $0.value.peerID }) { return "a session under another peer" }
            if let existing = before[session.peerID] {
                let replaces = existing.dialer == session.dialer || session.dialer == min(Self.local, session.peerID)
                switch outcome {
                case .replaced(let old) where replaces:
                    outcomes["replaced", default: 0] += 1
                    return old.serial == existing.serial && after[session.peerID]?.serial == session.serial
                        && after.sessions.count == before.sessions.count ? nil : "not replaced in place"
                case .duplicate where !replaces:
                    outcomes["duplicate", default: 0] += 1
                    return after.sessions.mapValues(\.serial) == before.sessions.mapValues(\.serial)
                        ? nil : "a duplicate changed the table"
                default: return "\(outcome) for a peer that has a session (replaces: \(replaces))"
                }
            }
            let bound: SessionRegistry<Fake>.Bound? =
                session.isInbound && atHost(before) >= before.sessionsPerAddress
                ? .address : before.sessions.count >= before.maxSessions ? .total : nil
            let pool = before.sessions.values.filter { bound != .address || $0.host == session.host }
            let evictable = pool.filter { !isProtected($0) }
            switch (outcome, bound) {
            case (.registered, nil):
                outcomes["registered", default: 0] += 1
                return after.sessions.count == before.sessions.count + 1 ? nil : "not added"
            case (.full(let refused), .some(let expected)) where refused == expected:
                outcomes["full \(expected == .address ? "address" : "total")", default: 0] += 1
                if !evictable.isEmpty { return "refused while \(evictable) could make room" }
                return after.sessions.mapValues(\.serial) == before.sessions.mapValues(\.serial)
                    ? nil : "a refusal changed the table"
            case (.evicted(let victim, let at), .some(let expected)) where at == expected:
                outcomes["evicted \(expected == .address ? "address" : "total")", default: 0] += 1
                guard evictable.contains(where: { $0.serial == victim.serial }) else {
                    return "evicted \(victim), which is protected or outside the pool"
                }
                if expected == .address, atHost(after) != atHost(before) { return "the address's count changed" }
                // The policy's order: the address holding the most sessions first, there the idlest.
                let held = Dictionary(grouping: before.sessions.values, by: \.host).mapValues(\.count)
                let rank = { (one: Fake) in (held[one.host] ?? 0, -Int(one.serial)) }
                if let better = evictable.first(where: { rank($0) > rank(victim) }) {
                    return "evicted \(victim) while \(better) comes first"
                }
                return after[victim.peerID] == nil && after[session.peerID]?.serial == session.serial
                    && after.sessions.count == before.sessions.count ? nil : "not exchanged"
            default:
                return "\(outcome) where the bound is \(String(describing: bound))"
            }
        }
    }
}
