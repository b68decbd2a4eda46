import Foundation
import InterPayTestSupport
import Testing

@testable import InterPayDiscovery

/// Which instances are resolved now and which wait (`ResolutionSlots`), the pure decider under `DiscoverySession`:
/// a table of cases, then a bounded exhaustive search of every sequence of four steps driven as the session drives
/// it, checking the rules after each.
@Suite("Resolution slots", .tearsDown)
struct ResolutionSlotsTests {
    @Test("two at once; a third waits; a freed slot goes to one that cannot wait before one that can")
    func cannotWaitFirst() {
        var slots = ResolutionSlots(maximum: 2)
        let answers = [
            slots.request("a", canWait: false, running: 0), slots.request("b", canWait: false, running: 1),
            slots.request("c", canWait: false, running: 2), slots.request("d", canWait: true, running: 2),
            slots.request("e", canWait: false, running: 2),
        ]
        #expect(answers == [true, true, false, false, false])
        #expect(slots.queue == ["c", "d", "e"])
        let waiting: Set = ["c"]
        let handedOn = slots.next(running: 1) { waiting.contains($0) }
        #expect(handedOn == "d")
        let noSlot = slots.next(running: 2) { waiting.contains($0) }
        #expect(noSlot == nil, "no slot free")
    }

    @Test("a resolve that cannot start lowers the cap to those running and goes first; completions raise it again")
    func capFollowsTheBus() {
        var slots = ResolutionSlots(maximum: 4)
        slots.couldNotStart("x", running: 1)
        #expect(slots.cap == 1 && slots.queue == ["x"])
        let admitted = slots.admit("y", running: 1)
        #expect(!admitted)
        #expect(slots.queue == ["x", "y"])
        for _ in 0..<4 { slots.completed() }
        #expect(slots.cap == 4)
    }

    @Test("one that can wait starts at once when none wait, and queues behind waiting ones even with a slot free")
    func canWaitQueuesBehind() {
        var slots = ResolutionSlots(maximum: 2)
        let answers = [
            slots.request("known", canWait: true, running: 0), slots.request("a", canWait: false, running: 2),
            slots.request("known2", canWait: true, running: 1),
        ]
        #expect(answers == [true, false, false])
        #expect(slots.queue == ["a", "known2"])
    }

    enum Step: CustomStringConvertible {
        case request(String, canWait: Bool)
        case startFails(String)
        case complete(String)
        case fail(String)
        case gone(String)
        case toggleWait(String)
        var description: String {
            switch self {
            case .request(let name, let canWait): "request \(name)\(canWait ? " (can wait)" : "")"
            case .startFails(let name): "start of \(name) fails"
            case .complete(let name): "complete \(name)"
            case .fail(let name): "fail \(name)"
            case .gone(let name): "gone \(name)"
            case .toggleWait(let name): "toggle wait \(name)"
            }
        }
    }

    /// The session's side: which instances resolve now, and which can wait.
    struct World: Equatable {
        var slots = ResolutionSlots(maximum: 2)
        var running: Set<String> = []
        var waiting: Set<String> = []
    }

    @Test("every sequence of four steps over three instances keeps the slots' rules")
    func exhaustiveSearch() {
        let names = ["a", "b", "c"]
        let steps: [Step] = names.flatMap { name in
            [
                .request(name, canWait: false), .request(name, canWait: true), .startFails(name), .complete(name),
                .fail(name), .gone(name), .toggleWait(name),
            ]
        }
        var seen: Set<String> = []
        // From nothing known, and from one instance that can wait (so that four steps reach a queue that holds both
        // kinds). A request that can wait with others queued and a slot free is in the table above: here the queue
        // is handed on as soon as a slot frees, so the search does not reach that state.
        let (sequences, failures) = searchEverySequence(
            from: [World(), World(waiting: ["a"])], steps: steps, depth: 4
        ) { step, world in Self.apply(step, to: &world, seen: &seen) }
        #expect(failures.isEmpty, "\(failures)")
        #expect(sequences == everySequenceCount(roots: 2, steps: steps.count, depth: 4))
        for kind in ["started", "queued", "lowered", "handed on", "handed to one that cannot wait"] {
            #expect(seen.contains(kind), "no sequence reached \(kind)")
        }
    }

    /// Applies `step` as `DiscoverySession` would; a sentence when a rule is broken.
    static func apply(_ step: Step, to world: inout World, seen: inout Set<String>) -> String? {
        /// Hands freed slots on, as `startQueuedResolutions` does.
        func drain() -> String? {
            while let name = world.slots.next(running: world.running.count, canWait: { world.waiting.contains($0) }) {
                seen.insert("handed on")
                if world.waiting.contains(name),
                    world.slots.queue.contains(where: { !world.waiting.contains($0) })
                {
                    return "handed to \(name), which can wait, before one that cannot"
                }
                if !world.waiting.contains(name), !world.waiting.isEmpty {
                    seen.insert("handed to one that cannot wait")
                }
                if world.running.contains(name) { continue }
                world.running.insert(name)
            }
            return nil
        }
        switch step {
        case .request(let name, let canWait):
            guard !world.running.contains(name) else { return nil }
            let queueBefore = world.slots.queue
            let started = world.slots.request(name, canWait: canWait, running: world.running.count)
            if started {
                seen.insert("started")
                if canWait, !queueBefore.isEmpty { return "one that can wait started before the waiting ones" }
                world.running.insert(name)
            } else {
                seen.insert("queued")
                guard world.slots.queue.contains(name) else { return "refused and not queued" }
            }
        case .startFails(let name):
            // The session asks for a slot, gets one, and the resolve cannot start while others run.
            guard !world.running.contains(name), !world.running.isEmpty,
                world.slots.admit(name, running: world.running.count)
            else { return nil }
            world.slots.couldNotStart(name, running: world.running.count)
            seen.insert("lowered")
            guard world.slots.queue.first == name, world.slots.cap == world.running.count else {
                return "cap \(world.slots.cap) with \(world.running.count) running, queue \(world.slots.queue)"
            }
        case .complete(let name), .fail(let name):
            guard world.running.remove(name) != nil else { return nil }
            if case .complete = step { world.slots.completed() }
            if let problem = drain() { return problem }
        case .gone(let name):
            world.running.remove(name)
            world.slots.remove(name)
            if world.slots.queue.contains(name) { return "still queued" }
            if let problem = drain() { return problem }
        case .toggleWait(let name):
            if world.waiting.contains(name) { world.waiting.remove(name) } else { world.waiting.insert(name) }
        }
        if world.running.count > world.slots.cap { return "\(world.running.count) running, cap \(world.slots.cap)" }
        if !(1...world.slots.maximum).contains(world.slots.cap) { return "cap \(world.slots.cap)" }
        if Set(world.slots.queue).count != world.slots.queue.count { return "queued twice: \(world.slots.queue)" }
        return nil
    }
}
