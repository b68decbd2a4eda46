import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayTransport

/// The dial targets and their loops' decisions (`DialTargets`), the pure decider under `SessionManager`'s dial
/// loops: a table of cases, then a bounded exhaustive search of every sequence of five steps (targets set, dropped
/// and re-pinned, loops stepping, dials ending, sessions coming and going), checking the rules after each.
@Suite("Dial targets", .tearsDown)
struct DialTargetsTests {
    /// Three IDs in order: `lower` < `local` < `higher`.
    static let (lower, local, higher): (PeerID, PeerID, PeerID) = {
        let ids = ["a", "b", "c"].map { PeerID(subjectPublicKeyInfoDER: Array($0.utf8)) }.sorted()
        return (ids[0], ids[1], ids[2])
    }()
    static let host = "198.18.0.2"

    @Test("the higher ID holds back once before its first dial; the lower dials at once")
    func holdsBackOnce() {
        var targets = DialTargets()
        _ = targets.maintain(key: "k", host: Self.host, port: 1, expectedPeerID: Self.lower, giveUpAfter: nil)
        guard var loop = targets.loop(for: "k") else {
            Issue.record("no loop")
            return
        }
        let first = targets.next(&loop, localPeer: Self.local, hasSession: { _ in false })
        #expect(first == .holdBack(Self.lower, host: Self.host))
        guard case .dial = targets.next(&loop, localPeer: Self.local, hasSession: { _ in false }) else {
            Issue.record("no dial after holding back")
            return
        }
        _ = targets.maintain(key: "j", host: Self.host, port: 1, expectedPeerID: Self.higher, giveUpAfter: nil)
        guard var other = targets.loop(for: "j") else {
            Issue.record("no loop")
            return
        }
        guard case .dial = targets.next(&other, localPeer: Self.local, hasSession: { _ in false }) else {
            Issue.record("the lower ID held back")
            return
        }
    }

    @Test("a target set without hold-back (the other side leaves the first dial to us) is dialed at once")
    func noHoldBack() throws {
        var targets = DialTargets()
        _ = targets.maintain(
            key: "k", host: Self.host, port: 1, expectedPeerID: Self.lower, giveUpAfter: nil, holdsBack: false)
        var loop = try #require(targets.loop(for: "k"))
        guard case .dial = targets.next(&loop, localPeer: Self.local, hasSession: { _ in false }) else {
            Issue.record("held back although the other side leaves the first dial to us")
            return
        }
        _ = targets.maintain(key: "k", host: Self.host, port: 1, expectedPeerID: Self.lower, giveUpAfter: nil)
        var again = try #require(targets.loop(for: "k"))
        #expect(
            targets.next(&again, localPeer: Self.local, hasSession: { _ in false })
                == .holdBack(Self.lower, host: Self.host), "set again with hold-back: holds back")
    }

    @Test("a target without an expected key pins the first one met, and keeps it when set again without one")
    func pinsFirstKey() throws {
        var targets = DialTargets()
        _ = targets.maintain(key: "k", host: Self.host, port: 1, expectedPeerID: nil, giveUpAfter: nil)
        var loop = try #require(targets.loop(for: "k"))
        guard case .dial(let target) = targets.next(&loop, localPeer: Self.local, hasSession: { _ in false }) else {
            Issue.record("no dial")
            return
        }
        let after = targets.dialed(&loop, target: target, outcome: .session(Self.higher))
        #expect(after == .backOff(0))
        _ = targets.maintain(key: "k", host: Self.host, port: 2, expectedPeerID: nil, giveUpAfter: nil)
        #expect(targets["k"]?.expectedPeerID == Self.higher)
        let old = targets.next(&loop, localPeer: Self.local, hasSession: { _ in false })
        #expect(old == .stop, "the old loop ends")
        _ = targets.resetPin(forKey: "k", expectedPeerID: nil)
        #expect(targets["k"]?.expectedPeerID == nil && targets["k"]?.pinnedPeerID == nil)
    }

    @Test("a discovered target that never had a session is dropped after giveUpAfter dials, with growing back-off")
    func givesUp() throws {
        var targets = DialTargets()
        _ = targets.maintain(key: "k", host: Self.host, port: 1, expectedPeerID: Self.higher, giveUpAfter: 3)
        var loop = try #require(targets.loop(for: "k"))
        var afters: [DialTargets.AfterDial] = []
        while case .dial(let target) = targets.next(&loop, localPeer: Self.local, hasSession: { _ in false }) {
            afters.append(targets.dialed(&loop, target: target, outcome: .failed))
        }
        #expect(afters == [.backOff(0), .backOff(1), .gaveUp(3)])
        #expect(targets["k"] == nil)
    }

    /// The world of the search: one target key, the loop of its current generation and the one before, the dial in
    /// progress, and which peers have a session.
    struct World {
        var targets = DialTargets()
        var current: DialTargets.Loop?
        var old: DialTargets.Loop?
        var dialing: (loop: DialTargets.Loop, target: DialTarget)?
        var up: Set<PeerID> = []
        /// Whether the current loop's last decision was to hold back.
        var heldBackLast = false
    }

    enum Step: CustomStringConvertible {
        case maintain(PeerID?, giveUpAfter: Int?)
        case stop
        case resetPin
        case pin(PeerID)
        case nextCurrent
        case nextOld
        case dialEnds(DialTargets.Outcome)
        case toggle(PeerID)
        var description: String {
            switch self {
            case .maintain(let id, let limit):
                "maintain \(id?.shortDescription ?? "any") \(limit.map(String.init) ?? "-")"
            case .stop: "stop"
            case .resetPin: "resetPin"
            case .pin(let id): "pin \(id.shortDescription)"
            case .nextCurrent: "next"
            case .nextOld: "next (old loop)"
            case .dialEnds(let outcome): "dial ends \(outcome)"
            case .toggle(let id): "toggle \(id.shortDescription)"
            }
        }
    }

    @Test("every sequence of five steps, from no session and from one, keeps the dial loops' rules")
    func exhaustiveSearch() {
        let ids = [Self.lower, Self.higher]
        var steps: [Step] = [.stop, .resetPin, .nextCurrent, .nextOld, .dialEnds(.failed)]
        for limit in [nil, 1] as [Int?] {
            steps += ([nil] + ids).map { .maintain($0, giveUpAfter: limit) }
        }
        steps += ids.map { .pin($0) } + ids.map { .dialEnds(.session($0)) } + ids.map { .toggle($0) }
        var seen: Set<String> = []
        // From no session, and from the higher peer's session up (so that five steps reach a target that had a
        // session and then fails its dials).
        let (sequences, failures) = searchEverySequence(
            from: [World(), World(up: [Self.higher])], steps: steps, depth: 5
        ) { step, world in Self.apply(step, to: &world, seen: &seen) }
        #expect(failures.isEmpty, "\(failures)")
        #expect(sequences == everySequenceCount(roots: 2, steps: steps.count, depth: 5))
        for kind in ["stop", "wait", "hold back", "dial", "back off", "gave up", "pinned"] {
            #expect(seen.contains(kind), "no sequence reached \(kind)")
        }
    }

    /// Applies `step`; a sentence when a rule is broken.
    static func apply(_ step: Step, to world: inout World, seen: inout Set<String>) -> String? {
        switch step {
        case .maintain(let id, let limit):
            let pinned = world.targets["k"]?.pinnedPeerID
            let generation = world.targets["k"]?.generation ?? 0
            _ = world.targets.maintain(key: "k", host: host, port: 1, expectedPeerID: id, giveUpAfter: limit)
            guard let target = world.targets["k"], target.generation > generation else { return "no new generation" }
            if target.expectedPeerID != (id ?? pinned) { return "expects \(String(describing: target.expectedPeerID))" }
            (world.old, world.current) = (world.current, world.targets.loop(for: "k"))
            world.heldBackLast = false
        case .stop:
            _ = world.targets.stop(key: "k")
            if world.targets["k"] != nil { return "still there" }
        case .resetPin:
            let had = world.targets["k"] != nil
            let wake = world.targets.resetPin(forKey: "k", expectedPeerID: nil)
            if (wake != nil) != had { return "reset answered \(String(describing: wake)) with a target: \(had)" }
            if had {
                guard world.targets["k"]?.pinnedPeerID == nil, world.targets["k"]?.expectedPeerID == nil else {
                    return "pin kept"
                }
                (world.old, world.current) = (world.current, world.targets.loop(for: "k"))
                world.heldBackLast = false
            }
        case .pin(let id):
            let before = world.targets["k"]
            world.targets.pin(id, forKey: "k")
            if let before, before.expectedPeerID == nil {
                if world.targets["k"]?.pinnedPeerID != id { return "not pinned" }
                seen.insert("pinned")
            } else if world.targets["k"] != before {
                return "a target with a key changed"
            }
        case .nextCurrent, .nextOld:
            let isCurrent = if case .nextCurrent = step { true } else { false }
            guard var loop = isCurrent ? world.current : world.old, world.dialing == nil else { return nil }
            let before = loop
            let target = world.targets["k"]
            let decision = world.targets.next(&loop, localPeer: local, hasSession: { world.up.contains($0) })
            let live = target != nil && target?.generation == loop.generation
            switch decision {
            case .stop:
                seen.insert("stop")
                if live { return "stopped a live loop" }
            case .waitForSessionEnd(let id):
                seen.insert("wait")
                guard live, id == target?.expectedPeerID, world.up.contains(id) else { return "waits for \(id)" }
            case .holdBack(let id, _):
                seen.insert("hold back")
                guard live, id == target?.expectedPeerID, local > id, before.attempt == 0 else { return "held back" }
                if isCurrent, world.heldBackLast { return "held back twice in a row" }
            case .dial(let dialed):
                seen.insert("dial")
                guard live, dialed == target else {
                    return "dialed \(dialed), the target is \(String(describing: target))"
                }
                if let id = dialed.expectedPeerID, world.up.contains(id) { return "dialed a peer with a session" }
                world.dialing = (loop, dialed)
            }
            if isCurrent {
                world.heldBackLast = if case .holdBack = decision { true } else { false }
                world.current = loop
            } else {
                world.old = loop
            }
        case .dialEnds(let outcome):
            guard let dialing = world.dialing else { return nil }
            var loop = dialing.loop
            let target = dialing.target
            world.dialing = nil
            let before = loop
            let generation = world.targets["k"]?.generation
            let after = world.targets.dialed(&loop, target: target, outcome: outcome)
            if case .session(let id) = outcome, target.expectedPeerID == nil, generation != nil,
                world.targets["k"]?.expectedPeerID != id
            {
                return "the key met was not pinned"
            }
            switch after {
            case .backOff(let step):
                seen.insert("back off")
                if outcome == .failed, step != before.attempt {
                    return "back-off step \(step) after \(before.attempt + 1) dials"
                }
                if outcome != .failed, step != 0 || loop.attempt != 0 { return "a session did not reset the count" }
            case .gaveUp(let attempts):
                seen.insert("gave up")
                guard outcome == .failed, !before.everUp, let limit = target.giveUpAfter, attempts >= limit,
                    generation == loop.generation, world.targets["k"] == nil
                else { return "gave up after \(attempts)" }
            }
            if world.current?.generation == loop.generation {
                world.current = loop
                world.heldBackLast = false
            } else if world.old?.generation == loop.generation {
                world.old = loop
            }
        case .toggle(let id):
            if world.up.contains(id) { world.up.remove(id) } else { world.up.insert(id) }
        }
        return nil
    }
}
