import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayDiscovery

/// The registration's names (`RegistrationNames`) and what was reported of each instance (`ReportedPeers`), the pure
/// deciders under `DiscoverySession`'s registration and reporting: tables of cases, then bounded exhaustive searches
/// of every sequence of events, checked after each against a model kept here.
@Suite("Discovery registration names and reports", .tearsDown)
struct RegistrationAndReportsTests {
    // MARK: Registration names

    @Test("a taken name is tried again under the next alternative; an accepted one is the requested name")
    func renames() {
        var names = RegistrationNames(maximumRenames: 3)
        let r1 = names.begin("alice")
        #expect(r1 == "alice")
        #expect(names.ownName == nil, "nothing is held until a call is accepted")
        let r2 = names.callReturned(.nameTaken)
        #expect(r2 == .retry(name: "alice #2", taken: "alice"))
        let r3 = names.callReturned(.nameTaken)
        #expect(r3 == .retry(name: "alice #3", taken: "alice #2"))
        let r4 = names.callReturned(.accepted)
        #expect(r4 == .registering)
        #expect(names.ownName == "alice #3" && names.requested == "alice #3" && names.registered == nil)
        let r5 = names.registered(as: "alice #3")
        #expect(r5, "the registered name is reported")
        let r6 = names.registered(as: "alice #3")
        #expect(!r6, "an older Avahi's second callback with the same name is not")
        #expect(names.ownName == "alice #3")
    }

    @Test("after maximumRenames taken names, or any other error, registering gives up")
    func givingUp() {
        var names = RegistrationNames(maximumRenames: 2)
        _ = names.begin("bob")
        let r7 = names.callReturned(.nameTaken)
        #expect(r7 == .retry(name: "bob #2", taken: "bob"))
        let r8 = names.callReturned(.nameTaken)
        #expect(r8 == .giveUp)
        #expect(names.ownName == nil)
        _ = names.begin("bob")
        let r9 = names.callReturned(.failed)
        #expect(r9 == .giveUp)
        let r10 = names.callReturned(.accepted)
        #expect(r10 == .giveUp, "no call is in progress after giving up")
    }

    @Test("a conflict on the network ends the registration and begins from the next name; an outage forgets all")
    func conflictAndReset() {
        var names = RegistrationNames(maximumRenames: 50)
        _ = names.begin("carol")
        _ = names.callReturned(.accepted)
        _ = names.registered(as: "carol")
        let r11 = names.conflicted(fallback: "carol")
        #expect(r11 == "carol #2")
        #expect(names.ownName == nil)
        let r12 = names.conflicted(fallback: "carol")
        #expect(r12 == "carol #2", "nothing asked for: the fallback's alternative")
        _ = names.begin("carol #2")
        _ = names.callReturned(.accepted)
        let r13 = names.registered(as: "carol #2")
        #expect(r13)
        names.reset()
        #expect(names.ownName == nil && names.requested == nil && names.registered == nil)
        let r14 = names.registered(as: "carol #2")
        #expect(r14, "after an outage the name is reported again")
    }

    enum NameEvent: CaseIterable {
        case begin, accepted, taken, failed, registeredAsked, registeredOther, conflict, reset
    }

    @Test("every sequence of seven registration events keeps the rules")
    func namesExhaustive() {
        var sequences = 0
        var violations: [String] = []
        var broken = 0
        func explore(_ prefix: [NameEvent]) {
            guard prefix.count < 7 else {
                sequences += 1
                if let problem = Self.check(prefix) {
                    broken += 1
                    if violations.count < 3 { violations.append("\(prefix): \(problem)") }
                }
                return
            }
            for event in NameEvent.allCases { explore(prefix + [event]) }
        }
        explore([])
        #expect(sequences == 2_097_152)
        #expect(broken == 0, "\(broken) sequences break a rule, e.g. \(violations)")
    }

    /// Drives `events` and checks the decider against a model: the names asked for in one registration are all
    /// different and at most `maximumRenames`; the own name is the registered one, else the last accepted; a name is
    /// reported only when it differs from the last reported; a conflict or a reset holds nothing. The first rule
    /// broken, or nil.
    static func check(_ events: [NameEvent]) -> String? {
        let maximum = 3
        var names = RegistrationNames(maximumRenames: maximum)
        var asked: [String] = []  // this registration's names, while a call is in progress
        var requested: String?
        var registered: String?
        for event in events {
            switch event {
            case .begin:
                let first = names.begin("node")
                guard first == "node" else { return "begin asked for \(first)" }
                asked = [first]
            case .accepted, .taken, .failed:
                let result: RegistrationNames.CallResult =
                    event == .accepted ? .accepted : event == .taken ? .nameTaken : .failed
                let next = names.callReturned(result)
                guard let current = asked.last else {
                    guard next == .giveUp else { return "\(next) with no call in progress" }
                    continue
                }
                switch (result, next) {
                case (.accepted, .registering):
                    requested = current
                    asked = []
                case (.failed, .giveUp):
                    asked = []
                case (.nameTaken, .giveUp):
                    guard asked.count == maximum else { return "gave up after \(asked.count) names" }
                    asked = []
                case (.nameTaken, .retry(let name, let taken)):
                    guard taken == current, !asked.contains(name), asked.count < maximum else {
                        return "retry \(name) after \(asked)"
                    }
                    asked.append(name)
                default:
                    return "\(result) gave \(next)"
                }
            case .registeredAsked, .registeredOther:
                let name = event == .registeredAsked ? (requested ?? "node") : "elsewhere"
                let reported = names.registered(as: name)
                guard reported == (name != registered) else { return "reported \(name) again or not at all" }
                registered = name
            case .conflict:
                let next = names.conflicted(fallback: "node")
                guard next == ServiceInstanceName.alternative(to: requested ?? "node") else {
                    return "conflict: \(next)"
                }
                requested = nil
                registered = nil
                asked = []
            case .reset:
                names.reset()
                requested = nil
                registered = nil
                asked = []
            }
            guard names.ownName == (registered ?? requested) else {
                return "own name \(names.ownName ?? "nil"), expected \(registered ?? requested ?? "nil")"
            }
        }
        return nil
    }

    // MARK: Reports

    static let alice = PeerID(subjectPublicKeyInfoDER: Array("alice".utf8))
    static let bob = PeerID(subjectPublicKeyInfoDER: Array("bob".utf8))

    static func peer(_ name: String, _ id: PeerID = alice, port: Int = 7420) -> DiscoveredPeer {
        DiscoveredPeer(
            serviceName: name, peerID: id, versions: [1], hostName: "h", address: "198.18.0.2", port: port,
            interfaceIndex: 2)
    }

    @Test("appeared once, changed when different, nothing when the same; disappeared once, only if reported")
    func reports() {
        var reports = ReportedPeers()
        let r15 = reports.gone("a")
        #expect(r15 == nil, "never reported: nothing disappears")
        let r16 = reports.resolved(Self.peer("a"))
        #expect(r16 == .appeared(Self.peer("a")))
        let r17 = reports.resolved(Self.peer("a"))
        #expect(r17 == nil)
        let r18 = reports.resolved(Self.peer("a", port: 7421))
        #expect(r18 == .changed(Self.peer("a", port: 7421)))
        #expect(
            reports.resolved(Self.peer("a", Self.bob, port: 7421)) == .changed(Self.peer("a", Self.bob, port: 7421)))
        #expect(reports["a"]?.peerID == Self.bob)
        let r19 = reports.gone("a")
        #expect(r19 == .disappeared(serviceName: "a", peerID: Self.bob))
        let r20 = reports.gone("a")
        #expect(r20 == nil)
        let r21 = reports.resolved(Self.peer("a"))
        #expect(r21 == .appeared(Self.peer("a")), "back after it went")
    }

    enum ReportEvent: CaseIterable {
        case resolveA, resolveAOtherPort, resolveB, goneA, goneB
    }

    @Test("every sequence of eight report events tells the consumer exactly what changed")
    func reportsExhaustive() {
        var sequences = 0
        var violations: [String] = []
        var broken = 0
        func explore(_ prefix: [ReportEvent]) {
            guard prefix.count < 8 else {
                sequences += 1
                if let problem = Self.check(prefix) {
                    broken += 1
                    if violations.count < 3 { violations.append("\(prefix): \(problem)") }
                }
                return
            }
            for event in ReportEvent.allCases { explore(prefix + [event]) }
        }
        explore([])
        #expect(sequences == 390_625)
        #expect(broken == 0, "\(broken) sequences break a rule, e.g. \(violations)")
    }

    /// Replays the events the consumer got onto a map of its own, and checks after each that it equals what the
    /// decider holds: the consumer's view never drifts from the session's. The first rule broken, or nil.
    static func check(_ events: [ReportEvent]) -> String? {
        var reports = ReportedPeers()
        var consumer: [String: DiscoveredPeer] = [:]
        for event in events {
            let emitted: DiscoveryEvent?
            switch event {
            case .resolveA: emitted = reports.resolved(peer("a"))
            case .resolveAOtherPort: emitted = reports.resolved(peer("a", port: 7421))
            case .resolveB: emitted = reports.resolved(peer("b", bob))
            case .goneA: emitted = reports.gone("a")
            case .goneB: emitted = reports.gone("b")
            }
            switch emitted {
            case .appeared(let peer)?:
                guard consumer[peer.serviceName] == nil else { return "appeared twice: \(peer.serviceName)" }
                consumer[peer.serviceName] = peer
            case .changed(let peer)?:
                guard let before = consumer[peer.serviceName], before != peer else { return "changed to the same" }
                consumer[peer.serviceName] = peer
            case .disappeared(let name, let id)?:
                guard consumer[name]?.peerID == id else { return "disappeared unreported: \(name)" }
                consumer[name] = nil
            case nil:
                break
            default:
                return "unexpected \(String(describing: emitted))"
            }
            guard consumer == reports.peers else { return "consumer \(consumer.keys) vs \(reports.peers.keys)" }
        }
        return nil
    }
}
