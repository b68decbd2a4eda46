import Foundation
import InterPayCore
import Testing

/// A bounded, exhaustive search of what an attacker can make two honest `PairingMachine`s do (PROTOCOL.md §7.9).
///
/// The world: alice's daemon has a machine for bob and one for mallory (the attacker, with a key of its own, whom
/// alice's user may start pairing with by mistake, e.g. under bob's name); bob's daemon has a machine for alice.
/// Mallory controls the network as far as TLS allows: every frame alice and bob send to each other may be
/// delivered to its addressee any number of times, in any order, or never (drop, delay, reorder, replay); on its own
/// session with alice it sends any frame it has seen or can build — commits of its own nonces (bound to its ID or
/// reflecting alice's), of nonces it learned from reveals, reveals of any nonce it knows, aborts of any attempt ID
/// it knows, under its own attempt IDs or ones it saw. Users start attempts (honest nonces come from a fixed pool),
/// confirm by typing the code the *other* user's screen shows, sessions drop and come up again, and time passes. Every state reachable
/// within `depth` events is visited once (breadth first, with a visited set), and after every event:
///
/// (a) whenever a user's daemon pairs, it pairs with the real key of the other user's device, and when both have
///     paired they confirmed the same code; alice never pairs with mallory by typing the code bob's screen shows;
/// (b) per machine, its reveals = attempts it counted ≤ attempts its user started (an attempt that revealed
///     nothing is never counted, so that cutting sessions or ignoring commits costs the users no attempt), and at
///     most `maxFailures` reveals between a pairing or lock and the next; every attempt that ends says so (`failed`
///     or `paired`);
/// (c) a machine reveals its nonce only after it has received the peer's commit it is bound to, and sends its own
///     commit before its reveal; a machine whose user has not started sends nothing, whatever it receives.
@Suite("Pairing adversary search")
struct PairingAdversarySearchTests {
    static let alice = PeerID(subjectPublicKeyInfoDER: Array("alice-spki".utf8))
    static let bob = PeerID(subjectPublicKeyInfoDER: Array("bob-spki".utf8))
    static let mallory = PeerID(subjectPublicKeyInfoDER: Array("mallory-spki".utf8))
    static let t0 = Timestamp(secondsSince1970: 1_800_000_000)

    /// Events in a path at most.
    static let depth = 9
    /// States the search must at least visit, so that it cannot pass by exploring nothing. (18,037 now: an attempt
    /// that revealed nothing no longer ends when its session does, so fewer states differ.)
    static let floor = 15_000

    static func nonce(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 32) }
    static func attempt(_ byte: UInt8) -> UUID {
        UUID(uuid: (byte, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, byte))
    }

    /// Honest nonces and attempt IDs, handed out in order.
    static let aliceNonces = [nonce(0xA1), nonce(0xA2), nonce(0xA3)]
    static let bobNonces = [nonce(0xB1), nonce(0xB2)]
    static let aliceAttempts = [attempt(0xA1), attempt(0xA2), attempt(0xA3)]
    static let bobAttempts = [attempt(0xB1), attempt(0xB2)]
    /// Mallory's own.
    static let malloryNonces = [nonce(0xC1), nonce(0xC2)]
    static let malloryAttempts = [attempt(0xC1)]

    /// What the checks need to remember about one machine.
    struct Track: Hashable {
        var starts = 0
        var counted = 0
        var reveals = 0
        var revealsSinceReset = 0
        var paired = false
        var confirmed: PairingCode?
        /// The code this machine's screen showed last: what the other user reads and types.
        var shown: PairingCode?
    }

    enum Who: Int, CaseIterable { case aliceForBob, aliceForMallory, bobForAlice }

    struct World: Hashable {
        var machines: [PairingMachine]
        var tracks: [Track] = Array(repeating: Track(), count: 3)
        /// Frames alice sent bob, and bob alice: each may be delivered any number of times, or never.
        var toBob: Set<PaymentMessage.Pairing> = []
        var toAlice: Set<PaymentMessage.Pairing> = []
        /// Every frame mallory has seen (it sees all traffic: an over-approximation).
        var seen: Set<PaymentMessage.Pairing> = []
        var aliceStarts = 0
        var bobStarts = 0
        var elapsed: Int64 = 0
        var timeSteps = 0

        subscript(who: Who) -> PairingMachine {
            get { machines[who.rawValue] }
            set { machines[who.rawValue] = newValue }
        }

        var now: Timestamp { PairingAdversarySearchTests.t0.adding(seconds: elapsed) }

        // The machines' peer IDs never change: only their phases and lockouts tell worlds apart.
        func hash(into hasher: inout Hasher) {
            for machine in machines {
                hasher.combine(machine.phase)
                hasher.combine(machine.lockout)
            }
            hasher.combine(tracks)
            hasher.combine(toBob)
            hasher.combine(toAlice)
            hasher.combine(seen)
            hasher.combine(aliceStarts)
            hasher.combine(bobStarts)
            hasher.combine(elapsed)
        }

        static func == (lhs: World, rhs: World) -> Bool {
            lhs.aliceStarts == rhs.aliceStarts && lhs.bobStarts == rhs.bobStarts && lhs.elapsed == rhs.elapsed
                && lhs.timeSteps == rhs.timeSteps
                && zip(lhs.machines, rhs.machines).allSatisfy { $0.phase == $1.phase && $0.lockout == $1.lockout }
                && lhs.tracks == rhs.tracks && lhs.toBob == rhs.toBob && lhs.toAlice == rhs.toAlice
                && lhs.seen == rhs.seen
        }
    }

    /// One thing that can happen next.
    enum Event: Hashable {
        case start(Who)
        case deliver(Who, PaymentMessage.Pairing)
        case confirm(Who, PairingCode)
        case sessionLost([Who])
        case sessionUp([Who])
        case wait(Int64)
    }

    /// Frames mallory can build from its own nonces and attempt IDs alone: commits bound to its own ID, commits that
    /// reflect alice's binding, and reveals.
    static let builtFrames: Set<PaymentMessage.Pairing> = {
        var frames: Set<PaymentMessage.Pairing> = []
        for id in malloryAttempts {
            for nonce in malloryNonces {
                frames.insert(
                    .init(pairingID: id, step: .commit, value: PairingCode.commitment(to: nonce, from: mallory)))
                frames.insert(
                    .init(pairingID: id, step: .commit, value: PairingCode.commitment(to: nonce, from: alice)))
                frames.insert(.init(pairingID: id, step: .reveal, value: nonce))
            }
            frames.insert(.init(abort: id, reason: "mallory"))
        }
        return frames
    }()

    /// Frames mallory can send alice now: everything it saw, everything it can build from its own nonces, and
    /// commits, reveals and aborts made from the nonces and attempt IDs it learned.
    static func malloryFrames(_ world: World) -> Set<PaymentMessage.Pairing> {
        var frames = builtFrames.union(world.seen)
        for frame in world.seen {
            frames.formUnion(learnedFrames[frame] ?? [])
        }
        return frames
    }

    /// What mallory can build from one frame it saw: an abort of its attempt, and from a reveal, commits and reveals
    /// of the nonce under its own attempt IDs. Honest frames are few: all of them are made here, once.
    static let learnedFrames: [PaymentMessage.Pairing: [PaymentMessage.Pairing]] = {
        var table: [PaymentMessage.Pairing: [PaymentMessage.Pairing]] = [:]
        let honest = [(alice, aliceAttempts, aliceNonces), (bob, bobAttempts, bobNonces)]
        for (sender, ids, nonces) in honest {
            for (id, nonce) in zip(ids, nonces) {
                let abort = PaymentMessage.Pairing(abort: id, reason: "mallory")
                let commit = PaymentMessage.Pairing(
                    pairingID: id, step: .commit, value: PairingCode.commitment(to: nonce, from: sender))
                table[commit] = [abort]
                var fromReveal = [abort]
                for own in malloryAttempts {
                    fromReveal.append(
                        .init(pairingID: own, step: .commit, value: PairingCode.commitment(to: nonce, from: mallory)))
                    fromReveal.append(.init(pairingID: own, step: .reveal, value: nonce))
                }
                table[.init(pairingID: id, step: .reveal, value: nonce)] = fromReveal
            }
        }
        return table
    }()

    static func events(_ world: World) -> [Event] {
        var events: [Event] = []
        if world.aliceStarts < aliceNonces.count {
            if world[.aliceForBob].phase == .idle { events.append(.start(.aliceForBob)) }
            if world[.aliceForMallory].phase == .idle { events.append(.start(.aliceForMallory)) }
        }
        if world.bobStarts < bobNonces.count, world[.bobForAlice].phase == .idle { events.append(.start(.bobForAlice)) }
        for frame in world.toBob { events.append(.deliver(.bobForAlice, frame)) }
        for frame in world.toAlice { events.append(.deliver(.aliceForBob, frame)) }
        for frame in malloryFrames(world) { events.append(.deliver(.aliceForMallory, frame)) }
        // Users type the code the other user's screen shows (or showed: they read it before either confirms), into
        // a machine that shows a code.
        if let code = world.tracks[Who.bobForAlice.rawValue].shown {
            for who in [Who.aliceForBob, .aliceForMallory] where world[who].code != nil {
                events.append(.confirm(who, code))
            }
        }
        if world[.bobForAlice].code != nil {
            for screen in [Who.aliceForBob, .aliceForMallory] {
                if let code = world.tracks[screen.rawValue].shown { events.append(.confirm(.bobForAlice, code)) }
            }
        }
        events += [.sessionLost([.aliceForBob, .bobForAlice]), .sessionLost([.aliceForMallory])]
        events += [.sessionUp([.aliceForBob, .bobForAlice]), .sessionUp([.aliceForMallory])]
        if world.timeSteps < 1 { events.append(.wait(PairingMachine.codeLifetime)) }
        return events
    }

    /// Applies `event` and checks the invariants; returns the next world (nil when it is this one), or a violation.
    static func step(_ world: World, _ event: Event) -> Result<World?, Violation> {
        var next = world
        var outcomes: [(Who, PairingMachine.Phase, [PairingMachine.Action])] = []
        func run(_ who: Who, _ body: (inout PairingMachine) -> [PairingMachine.Action]) {
            let before = next[who].phase
            var machine = next[who]
            let actions = body(&machine)
            next[who] = machine
            outcomes.append((who, before, actions))
        }
        let now = next.now
        switch event {
        case .start(let who):
            let isAlice = who != .bobForAlice
            let index = isAlice ? next.aliceStarts : next.bobStarts
            let (id, nonce) =
                isAlice
                ? (aliceAttempts[index], aliceNonces[index]) : (bobAttempts[index], bobNonces[index])
            if isAlice { next.aliceStarts += 1 } else { next.bobStarts += 1 }
            next.tracks[who.rawValue].starts += 1
            run(who) { $0.start(attemptID: id, nonce: nonce, now: now) }
        case .deliver(let who, let frame):
            run(who) { $0.receive(frame, now: now) }
        case .confirm(let who, let code):
            run(who) { $0.confirm(code, now: now) }
            if outcomes.last?.2.contains(.paired) == true { next.tracks[who.rawValue].confirmed = code }
        case .sessionLost(let whom):
            for who in whom { run(who) { $0.sessionLost(now: now) } }
        case .sessionUp(let whom):
            for who in whom { run(who) { $0.sessionUp(now: now) } }
        case .wait(let seconds):
            next.elapsed += seconds
            next.timeSteps += 1
            for who in Who.allCases {
                let wasLocked = if case .locked = next[who].phase { true } else { false }
                run(who) { $0.tick(now: next.now) }
                if wasLocked, next[who].phase == .idle { next.tracks[who.rawValue].revealsSinceReset = 0 }
            }
        }

        // A frame that changed nothing and made the machine do nothing but notice (or ignore) it leads back to the
        // same world: skip the bookkeeping (the check that nothing was sent is the same either way).
        if case .deliver(let who, _) = event, next[who] == world[who],
            outcomes.allSatisfy({ $0.2.allSatisfy { $0 == .peerWantsToPair } })
        {
            return .success(nil)
        }

        for (who, before, actions) in outcomes {
            var track = next.tracks[who.rawValue]
            let sent = actions.compactMap { if case .send(let frame) = $0 { frame } else { nil } }
            let wasStarted: Bool
            switch before {
            case .idle, .locked: wasStarted = false
            case .committed, .revealed, .codeReady: wasStarted = true
            }
            // (c) A machine whose user has not started answers nothing.
            if !wasStarted, case .deliver = event, !sent.isEmpty {
                return .failure(.init("\(who) answered a frame before its user started", event))
            }
            // A session coming up makes a machine send nothing but its own commit again.
            if case .sessionUp = event, !sent.allSatisfy({ $0.step == .commit && $0.pairingID == world[who].attemptID })
            {
                return .failure(.init("\(who) sent more than its commit when a session came up", event))
            }
            for (index, frame) in sent.enumerated() where frame.step == .reveal {
                track.reveals += 1
                track.revealsSinceReset += 1
                // (c) Only once the peer's commit it is bound to was received, and after our own commit.
                guard case .revealed(_, let theirs, _) = next[who].phase, case .deliver(_, let received) = event,
                    received.step == .commit, received.value == theirs.commitment
                else {
                    return .failure(.init("\(who) revealed without holding the peer's commit", event))
                }
                guard index > 0, sent[index - 1].step == .commit else {
                    return .failure(.init("\(who) revealed without sending its commit first", event))
                }
            }
            for action in actions {
                switch action {
                case .counted: track.counted += 1
                case .paired:
                    track.paired = true
                    track.revealsSinceReset = 0
                case .lockedOut: track.revealsSinceReset = 0
                case .showCode(let code, _): track.shown = code
                default: break
                }
            }
            // (b) Reveals are counted attempts, counted attempts are started ones, within the lockout.
            guard track.reveals == track.counted, track.counted <= track.starts else {
                return .failure(
                    .init("\(who): reveals \(track.reveals), counted \(track.counted), started \(track.starts)", event))
            }
            guard track.revealsSinceReset <= PairingMachine.maxFailures else {
                return .failure(
                    .init("\(who) revealed more than \(PairingMachine.maxFailures) times without a lock", event))
            }
            // (b) An attempt that ends says so.
            let endsNow: Bool
            switch next[who].phase {
            case .idle, .locked: endsNow = wasStarted
            case .committed, .revealed, .codeReady: endsNow = false
            }
            if endsNow, !actions.contains(where: { if case .failed = $0 { true } else { $0 == .paired } }) {
                return .failure(.init("\(who)'s attempt ended without a word", event))
            }
            // Sent frames go on the wire, and mallory sees them.
            for frame in sent {
                next.seen.insert(frame)
                switch who {
                case .aliceForBob: next.toBob.insert(frame)
                case .bobForAlice: next.toAlice.insert(frame)
                case .aliceForMallory: break
                }
            }
            next.tracks[who.rawValue] = track
        }

        // (a) Users pair only with each other's real keys, on the same code.
        let tracks = next.tracks
        if tracks[Who.aliceForMallory.rawValue].paired {
            return .failure(.init("alice paired with mallory's key using the code bob's screen showed", event))
        }
        if tracks[Who.aliceForBob.rawValue].paired, tracks[Who.bobForAlice.rawValue].paired {
            guard tracks[Who.aliceForBob.rawValue].confirmed == tracks[Who.bobForAlice.rawValue].confirmed,
                next[.aliceForBob].peer == bob, next[.bobForAlice].peer == alice
            else {
                return .failure(.init("alice and bob paired on different codes or keys", event))
            }
        }
        return .success(next)
    }

    struct Violation: Error, CustomStringConvertible {
        var what: String
        var event: Event
        init(_ what: String, _ event: Event) {
            self.what = what
            self.event = event
        }
        var description: String { "\(what) (after \(event))" }
    }

    @Test("no reachable state breaks the pairing invariants")
    func search() throws {
        let start = World(machines: [
            PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.alice, peer: Self.mallory),
            PairingMachine(me: Self.bob, peer: Self.alice),
        ])
        var visited: Set<World> = [start]
        var frontier = [start]
        var honestPairings = 0
        var bothPaired = 0
        var codesShownToAliceByMallory = 0
        for _ in 0..<Self.depth {
            var nextFrontier: [World] = []
            for world in frontier {
                for event in Self.events(world) {
                    guard let next = try Self.step(world, event).get(), visited.insert(next).inserted else { continue }
                    if next.tracks[Who.aliceForBob.rawValue].paired || next.tracks[Who.bobForAlice.rawValue].paired {
                        honestPairings += 1
                    }
                    if next.tracks[Who.aliceForBob.rawValue].paired && next.tracks[Who.bobForAlice.rawValue].paired {
                        bothPaired += 1
                    }
                    if next[.aliceForMallory].code != nil { codesShownToAliceByMallory += 1 }
                    nextFrontier.append(next)
                }
            }
            frontier = nextFrontier
        }
        print(
            "pairing adversary search: \(visited.count) states explored to depth \(Self.depth); "
                + "\(honestPairings) with an honest pairing, \(bothPaired) with both, "
                + "\(codesShownToAliceByMallory) with a code between alice and mallory")
        #expect(visited.count > Self.floor, "the search explored too little to mean anything")
        // The search reaches the interesting places: honest pairings, and codes between alice and mallory.
        #expect(honestPairings > 0)
        #expect(codesShownToAliceByMallory > 0)
    }
}
