import Foundation
import InterPayCore
import InterPayTestSupport
import Logging
import Synchronization
import Testing

@testable import InterPayDaemon

/// Which peer the text a user typed names: IDs before names, names only when unique (SECURITY.md, "Names beat
/// IDs").
@Suite("Peer resolution", .tearsDown)
struct PeerResolverTests {
    let bob = PeerID(subjectPublicKeyInfoDER: Array("bob".utf8))
    let carol = PeerID(subjectPublicKeyInfoDER: Array("carol".utf8))
    let mallory = PeerID(subjectPublicKeyInfoDER: Array("mallory".utf8))

    func resolve(_ text: String, _ candidates: [(PeerID, String)]) -> PeerResolver.Resolution {
        PeerResolver.resolve(text, among: candidates.map { PeerResolver.Candidate(id: $0.0, name: $0.1) })
    }

    @Test("a peer whose name is another peer's full or short ID does not capture that ID")
    func idBeatsName() {
        for text in [bob.description, bob.shortDescription, String(bob.compactDescription.prefix(4))] {
            #expect(resolve(text, [(bob, "bob"), (mallory, text)]) == .found(bob), "\(text)")
        }
        // Even when the real peer is not known yet, the impostor is not found by the ID text.
        #expect(resolve(bob.shortDescription, [(mallory, bob.shortDescription)]) == .notFound)
    }

    @Test("a name shared by two known peers is ambiguous and lists both short IDs")
    func duplicateName() {
        let result = resolve("Bob", [(bob, "bob"), (mallory, "BOB"), (carol, "carol")])
        guard case .ambiguous(let candidates) = result else {
            Issue.record("expected ambiguity, got \(result)")
            return
        }
        #expect(candidates.count == 2)
        #expect(candidates.contains { $0.contains(bob.shortDescription) })
        #expect(candidates.contains { $0.contains(mallory.shortDescription) })
    }

    @Test("a unique name, case-insensitive, resolves; an unknown one does not")
    func uniqueName() {
        #expect(resolve("Carol", [(bob, "bob"), (carol, "carol")]) == .found(carol))
        // In capitals, 4 or more letters of the ID alphabet read as an ID prefix, never as a name.
        #expect(resolve("CAROL", [(bob, "bob"), (carol, "carol")]) == .notFound)
        #expect(resolve("dave", [(bob, "bob"), (carol, "carol")]) == .notFound)
    }

    @Test("an ID prefix shorter than 4 characters names no one; a prefix two IDs share is ambiguous")
    func prefixes() {
        let short = String(bob.compactDescription.prefix(3))
        #expect(resolve(short, [(bob, "bob")]) == .notFound)
        #expect(resolve(String(bob.description.prefix(10)), [(bob, "bob"), (carol, "carol")]) == .found(bob))
    }

    @Test("a name typed in small letters that is also the start of another peer's ID is ambiguous")
    func nameVersusLowercaseID() {
        let text = String(bob.compactDescription.prefix(5)).lowercased()
        let result = resolve(text, [(bob, "bob"), (mallory, text)])
        guard case .ambiguous(let candidates) = result else {
            Issue.record("expected ambiguity, got \(result)")
            return
        }
        #expect(candidates.count == 2)
    }

    @Test("an ID prefix typed with the look-alikes 0, 1, 8 reaches that ID, never a peer whose name is that text")
    func lenientPrefix() throws {
        // A key whose short ID holds at least one of O, I, B, so that the typed text differs from it.
        let target = try #require(
            (0..<1_000).lazy.map { PeerID(subjectPublicKeyInfoDER: Array("key \($0)".utf8)) }
                .first { $0.shortDescription.contains { "OIB".contains($0) } })
        let short = target.shortDescription
        let typed = String(
            short.map { character -> Character in
                switch character {
                case "O": "0"
                case "I": "1"
                case "B": "8"
                default: character
                }
            })
        // The impostor announces the look-alike text as its name (refused on the wire since; it may be stored).
        #expect(typed != short)
        #expect(resolve(typed, [(target, "bob"), (mallory, typed)]) == .found(target))
        #expect(resolve(typed.lowercased(), [(target, "bob")]) == .found(target))
    }

    @Test("ambiguity lists names escaped")
    func escapedCandidates() {
        let result = resolve("x", [(bob, "x"), (mallory, "x\u{1B}[8m"), (carol, "X")])
        #expect(
            result
                == .ambiguous(
                    ["X (\(carol.shortDescription)) [unverified]", "x (\(bob.shortDescription)) [unverified]"].sorted())
        )
        let hostile = PeerResolver.resolve(
            "bob", among: [.init(id: bob, name: "bob"), .init(id: mallory, name: "bob\u{1B}")])
        #expect(hostile == .found(bob))
    }
}

@Suite("Log lines a peer can influence", .tearsDown)
struct LogSafetyTests {
    let date = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("a newline and a syslog priority in a peer's name cannot forge a line; values are quoted")
    func forgedLine() {
        let line = DaemonLogHandler.line(
            .info, "session up", ["peer": "bob\n<2>root login", "id": "ABCDEFG"], style: .journal, date: date)
        #expect(line == "<6>session up id=ABCDEFG peer=\"bob\\u{000A}<2>root login\"\n")
        #expect(line.filter { $0 == "\n" }.count == 1)
        let equals = DaemonLogHandler.line(.info, "m", ["peer": "x id=FAKE"], style: .journal, date: date)
        #expect(equals == "<6>m peer=\"x id=FAKE\"\n")
        let escape = DaemonLogHandler.line(.info, "memo \u{1B}]0;title\u{07}", [:], style: .journal, date: date)
        #expect(!escape.contains("\u{1B}") && !escape.contains("\u{07}"))
    }

    @Test("lines about one peer past its budget are left out and counted; other peers and errors are not")
    func perPeerBudget() {
        let lines = Mutex<[String]>([])
        let budget = PeerLogBudget(burst: 5, perSecond: 0.0001)
        let handler = DaemonLogHandler(level: .info, style: .journal, budget: budget) { line in
            lines.withLock { $0.append(line) }
        }
        let logger = Logger(label: "test") { _ in handler }
        for _ in 0..<2_000 { logger.notice("undecodable frame", metadata: ["peer": "MALLORY"]) }
        logger.notice("session up", metadata: ["peer": "BOB"])
        logger.error("storage failed", metadata: ["peer": "MALLORY"])
        let written = lines.withLock { $0 }
        #expect(written.filter { $0.contains("MALLORY") && $0.contains("undecodable") }.count == 5)
        #expect(written.contains { $0.contains("BOB") })
        #expect(written.contains { $0.contains("storage failed") })
    }

    @Test("after a pause the budget returns, and the next line says how many were left out")
    func suppressedCount() {
        let budget = PeerLogBudget(burst: 1, perSecond: 1)
        let start = ContinuousClock.now
        #expect(budget.admit("p", now: start) == 0)
        #expect(budget.admit("p", now: start) == nil)
        #expect(budget.admit("p", now: start) == nil)
        #expect(budget.admit("p", now: start + .seconds(2)) == 2)
    }

    @Test("400 fresh keys on one address get that address's budget, not 400 budgets; another address keeps its own")
    func perAddressBudget() {
        let budget = PeerLogBudget(addressBurst: 60, addressPerSecond: 0.0001, totalBurst: 1_000)
        let now = ContinuousClock.now
        var written = 0
        for index in 0..<400 {
            let key = "FRESH\(index)"
            // Its session came up from the flooding host; its lines name only its ID, or its address too.
            budget.associate(peer: key, host: "198.18.0.9")
            for _ in 0..<3 where budget.admit(key, now: now) != nil { written += 1 }
            if budget.admit(key, address: "198.18.0.9:\(40_000 + index)", now: now) != nil { written += 1 }
        }
        // Before: 30 per key (1,600 lines); now the address's burst.
        #expect(written == 60)
        #expect(budget.admit("BOB", address: "198.18.0.2:7420", now: now) == 0)
        let summary = budget.summary(now: now)
        #expect(summary?.lines == 1_600 - 60)
        // The first 15 keys' 60 lines passed whole: the other 385 keys each lost some.
        #expect(summary?.peers == 385)
        #expect(budget.summary(now: now + .seconds(1)) == nil, "nothing new, and too soon anyway")
    }

    @Test("buckets full again are forgotten at the next sweep, those of peers with lines left out too; others kept")
    func quietBucketsForgotten() {
        let budget = PeerLogBudget(
            burst: 2, perSecond: 1, addressBurst: 1_000, addressPerSecond: 100, totalBurst: 10_000)
        let start = ContinuousClock.now
        for index in 0..<500 {
            budget.associate(peer: "fresh\(index)", host: "198.18.0.\(index % 4)")
            _ = budget.admit("fresh\(index)", now: start)
        }
        // One peer past its budget, as fresh keys are when the daemon-wide budget runs dry.
        for _ in 0..<3 { _ = budget.admit("noisy", address: "198.18.0.9:7420", now: start) }
        #expect(budget.tracked.peers == 501)
        #expect(budget.tracked.hosts == 500)
        // Before the sweep the tables kept every entry until maxPeers, and their storage for good.
        #expect(budget.summary(now: start + .seconds(30))?.lines == 1, "what was left out is summed up")
        let tracked = budget.tracked
        #expect(tracked.peers == 0, "every bucket is full again (\(tracked))")
        #expect(tracked.hosts == 0)
        #expect(tracked.addresses == 0)
        // A bucket short of tokens is kept until it is full.
        _ = budget.admit("busy", now: start + .seconds(40))
        _ = budget.summary(now: start + .seconds(40.5))
        #expect(budget.tracked.peers == 1, "a peer that used tokens is kept while its bucket refills")
        _ = budget.summary(now: start + .seconds(50.5))
        #expect(budget.tracked.peers == 0)
    }

    @Test("all peers together stay within the daemon-wide budget, whatever their addresses")
    func daemonWideBudget() {
        let budget = PeerLogBudget(totalBurst: 100, totalPerSecond: 0.0001)
        let now = ContinuousClock.now
        let written = (0..<1_000).filter { index in
            budget.admit("FRESH\(index)", address: "198.18.\(index / 250).\(index % 250)", now: now) != nil
        }.count
        #expect(written == 100)
        #expect(budget.summary(now: now).map { [$0.lines, $0.peers] } == [900, 900])
        #expect(budget.admit("LATE", now: now) == nil)
        #expect(budget.summary(now: now + .seconds(5)) == nil, "at most one summary per interval")
        #expect(budget.summary(now: now + .seconds(10)).map { [$0.lines, $0.peers] } == [1, 1])
    }

    @Test("a flood of peer lines hides neither errors nor the lines the local user caused")
    func userLinesKept() {
        let lines = Mutex<[String]>([])
        let budget = PeerLogBudget(totalBurst: 10, totalPerSecond: 0.0001)
        let handler = DaemonLogHandler(level: .info, style: .journal, budget: budget) { line in
            lines.withLock { $0.append(line) }
        }
        let logger = Logger(label: "test") { _ in handler }
        for index in 0..<500 { logger.notice("undecodable frame", metadata: ["peer": "FRESH\(index)"]) }
        logger.notice("peer paired", metadata: ["peer": "bob", "id": "BOBBBBB", "cause": DaemonLogHandler.userCause])
        logger.notice("session up", metadata: ["peer": "carol", "id": "CAROLLL", "address": "198.18.0.3:1"])
        let written = lines.withLock { $0 }
        #expect(written.filter { $0.contains("undecodable") }.count == 10)
        #expect(written.contains { $0.contains("peer paired") })
        #expect(!written.contains { $0.contains("CAROLLL") }, "the daemon-wide budget holds for every peer")
    }
}
