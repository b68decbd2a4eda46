import Foundation
import InterPayCore
import Testing

@Suite("Pairing")
struct PairingMachineTests {
    static let alice = PeerID(subjectPublicKeyInfoDER: Array("alice-spki".utf8))
    static let bob = PeerID(subjectPublicKeyInfoDER: Array("bob-spki".utf8))
    static let t0 = Timestamp(secondsSince1970: 1_800_000_000)
    static let aliceNonce = [UInt8](repeating: 1, count: 32)
    static let bobNonce = [UInt8](repeating: 2, count: 32)
    static let aliceAttempt = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0xA1))
    static let bobAttempt = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0xB1))

    static func commit(_ id: UUID, _ nonce: [UInt8], from sender: PeerID) -> PaymentMessage.Pairing {
        .init(pairingID: id, step: .commit, value: PairingCode.commitment(to: nonce, from: sender))
    }

    static func reveal(_ id: UUID, _ nonce: [UInt8]) -> PaymentMessage.Pairing {
        .init(pairingID: id, step: .reveal, value: nonce)
    }

    @Test("the code and the commitment match the worked example of PROTOCOL.md §7.9")
    func knownAnswer() {
        let code = PairingCode(Self.alice, nonce: Self.aliceNonce, Self.bob, nonce: Self.bobNonce)
        #expect(code.digits == "760061")
        #expect(code.description == "760 061")
        #expect(Self.wrongCode != code)
        // No roles: both sides compute the same code, whichever they name first.
        #expect(PairingCode(Self.bob, nonce: Self.bobNonce, Self.alice, nonce: Self.aliceNonce) == code)
        // Nonces belong to their peers: swapping them gives another code.
        #expect(PairingCode(Self.alice, nonce: Self.bobNonce, Self.bob, nonce: Self.aliceNonce) != code)
        #expect(
            PairingCode.commitment(to: Self.aliceNonce, from: Self.alice)
                == hexBytes("1af716d71e5b1336b464fecdd8782f904f020ea9b24be5fe71af3fce5ed2c46c"))
        #expect(
            PairingCode.commitment(to: Self.bobNonce, from: Self.bob)
                == hexBytes("7821826357fef015ca4a4e9ef0337eed42219a63c2ebc4f49bde0f7572c5e961"))
        // The sender's ID is bound: the same nonce committed by another peer is another commitment.
        #expect(
            PairingCode.commitment(to: Self.aliceNonce, from: Self.bob)
                != PairingCode.commitment(to: Self.aliceNonce, from: Self.alice))
    }

    @Test("typed codes: six digits, spaces and dashes ignored")
    func userInput() {
        #expect(PairingCode(userInput: "210 476")?.digits == "210476")
        #expect(PairingCode(userInput: "210-476")?.digits == "210476")
        for bad in ["", "21047", "2104760", "21o476", "２１０４７６", "-21047"] {
            #expect(PairingCode(userInput: bad) == nil, "\(bad)")
        }
    }

    @Test("alice starts, bob's daemon says nothing until bob starts; then both reveal and show the same code")
    func happyPath() throws {
        var (a, b) = (PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.bob, peer: Self.alice))
        let started = a.start(attemptID: Self.aliceAttempt, nonce: Self.aliceNonce, now: Self.t0)
        #expect(
            started == [
                .started(Self.aliceAttempt), .send(Self.commit(Self.aliceAttempt, Self.aliceNonce, from: Self.alice)),
            ])
        // Bob has not started: his daemon tells him, and answers nothing.
        #expect(b.receive(try #require(started.sentFrames.first), now: Self.t0) == [.peerWantsToPair])
        #expect(b.phase == .idle)

        // Bob starts later; alice now holds his commit: she sends hers again, then her reveal.
        let bobStart = b.start(attemptID: Self.bobAttempt, nonce: Self.bobNonce, now: Self.t0.adding(seconds: 30))
        let bobCommit = try #require(bobStart.sentFrames.first)
        let aliceAnswer = a.receive(bobCommit, now: Self.t0.adding(seconds: 30))
        #expect(
            aliceAnswer == [
                .counted(failures: 1), .send(Self.commit(Self.aliceAttempt, Self.aliceNonce, from: Self.alice)),
                .send(Self.reveal(Self.aliceAttempt, Self.aliceNonce)),
            ])
        // Bob gets alice's commit (the resent one), then her reveal.
        let bobAnswer = b.receive(aliceAnswer.sentFrames[0], now: Self.t0.adding(seconds: 30))
        #expect(bobAnswer.sentFrames.map(\.step) == [.commit, .reveal])
        let bobShows = b.receive(aliceAnswer.sentFrames[1], now: Self.t0.adding(seconds: 30))
        // Alice gets bob's resent commit (the same again: nothing) and his reveal.
        #expect(a.receive(bobAnswer.sentFrames[0], now: Self.t0.adding(seconds: 30)) == [])
        let aliceShows = a.receive(bobAnswer.sentFrames[1], now: Self.t0.adding(seconds: 30))
        let code = PairingCode(Self.alice, nonce: Self.aliceNonce, Self.bob, nonce: Self.bobNonce)
        let expires = Self.t0.adding(seconds: 30 + PairingMachine.codeLifetime)
        #expect(aliceShows == [.showCode(code, expiresAt: expires)])
        #expect(bobShows == [.showCode(code, expiresAt: expires)])

        #expect(b.confirm(code, now: Self.t0.adding(seconds: 60)) == [.paired])
        #expect(b.phase == .idle && b.lockout == .init())
        #expect(a.confirm(code, now: Self.t0.adding(seconds: 60)) == [.paired])
    }

    @Test("both users start at once: each reveals once it has the other's commit; one code")
    func crossingStarts() throws {
        var (a, b) = (PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.bob, peer: Self.alice))
        let aCommit = try #require(
            a.start(attemptID: Self.aliceAttempt, nonce: Self.aliceNonce, now: Self.t0).sentFrames.first)
        let bCommit = try #require(
            b.start(attemptID: Self.bobAttempt, nonce: Self.bobNonce, now: Self.t0).sentFrames.first)
        let aOut = a.receive(bCommit, now: Self.t0).sentFrames
        let bOut = b.receive(aCommit, now: Self.t0).sentFrames
        #expect(aOut.map(\.step) == [.commit, .reveal] && bOut.map(\.step) == [.commit, .reveal])
        for frame in bOut { _ = a.receive(frame, now: Self.t0) }
        for frame in aOut { _ = b.receive(frame, now: Self.t0) }
        #expect(a.code != nil && a.code?.code == b.code?.code)
    }

    /// One row: a machine in some phase gets one input; what it sends, whether it counts, and where it ends.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var setup: @Sendable (inout PairingMachine) -> Void
        var input: @Sendable (inout PairingMachine) -> [PairingMachine.Action]
        var sends: [PaymentMessage.Pairing.Step]
        var failures: Int
        var phase: String
        var testDescription: String { name }
    }

    static let otherAttempt = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0xC1))
    static let otherNonce = [UInt8](repeating: 9, count: 32)
    /// Not the code of alice's and bob's nonces (checked in `knownAnswer`).
    static let wrongCode = PairingCode(alice, nonce: otherNonce, bob, nonce: otherNonce)

    static func started(_ m: inout PairingMachine) {
        _ = m.start(attemptID: aliceAttempt, nonce: aliceNonce, now: t0)
    }

    static func revealed(_ m: inout PairingMachine) {
        started(&m)
        _ = m.receive(commit(bobAttempt, bobNonce, from: bob), now: t0)
    }

    static func coded(_ m: inout PairingMachine) {
        revealed(&m)
        _ = m.receive(reveal(bobAttempt, bobNonce), now: t0)
    }

    static let lockedUntil = t0.adding(seconds: PairingMachine.lockoutDuration)

    static func locked(_ m: inout PairingMachine) {
        m = PairingMachine(me: alice, peer: bob, lockout: .init(failures: 0, lockedUntil: lockedUntil))
    }

    static let rows: [Row] = [
        Row(
            name: "idle, commit: noticed, not answered", setup: { _ in },
            input: { $0.receive(commit(bobAttempt, bobNonce, from: bob), now: t0) }, sends: [], failures: 0,
            phase: "idle"),
        Row(
            name: "idle, reveal: ignored", setup: { _ in },
            input: { $0.receive(reveal(bobAttempt, bobNonce), now: t0) }, sends: [], failures: 0, phase: "idle"),
        Row(
            name: "idle, abort: ignored", setup: { _ in },
            input: { $0.receive(.init(abort: bobAttempt, reason: "x"), now: t0) }, sends: [], failures: 0,
            phase: "idle"),
        Row(
            name: "idle, session up: nothing", setup: { _ in },
            input: { $0.sessionUp(now: t0) }, sends: [], failures: 0, phase: "idle"),
        Row(
            name: "idle, start: commit", setup: { _ in },
            input: { $0.start(attemptID: aliceAttempt, nonce: aliceNonce, now: t0) }, sends: [.commit], failures: 0,
            phase: "committed"),
        Row(
            name: "committed, start again: nothing new", setup: started,
            input: { $0.start(attemptID: otherAttempt, nonce: otherNonce, now: t0) }, sends: [], failures: 0,
            phase: "committed"),
        Row(
            name: "committed, commit: counted, commit again and reveal", setup: started,
            input: { $0.receive(commit(bobAttempt, bobNonce, from: bob), now: t0) }, sends: [.commit, .reveal],
            failures: 1, phase: "revealed"),
        Row(
            name: "committed, reveal before its commit: ignored", setup: started,
            input: { $0.receive(reveal(bobAttempt, bobNonce), now: t0) }, sends: [], failures: 0,
            phase: "committed"),
        Row(
            name: "committed, abort of ours: ends, not counted (nothing revealed)", setup: started,
            input: { $0.receive(.init(abort: aliceAttempt, reason: "no"), now: t0) }, sends: [], failures: 0,
            phase: "idle"),
        Row(
            name: "committed, abort of another attempt: ignored", setup: started,
            input: { $0.receive(.init(abort: otherAttempt, reason: "no"), now: t0) }, sends: [], failures: 0,
            phase: "committed"),
        Row(
            name: "committed, session lost: goes on, not counted", setup: started,
            input: { $0.sessionLost(now: t0) }, sends: [], failures: 0, phase: "committed"),
        Row(
            name: "committed, session up: the commit again", setup: started,
            input: { $0.sessionUp(now: t0) }, sends: [.commit], failures: 0, phase: "committed"),
        Row(
            name: "committed, session lost then up: the same commit again", setup: started,
            input: { m in
                _ = m.sessionLost(now: t0)
                let again = m.sessionUp(now: t0.adding(seconds: 30))
                return again.sentFrames == [commit(aliceAttempt, aliceNonce, from: alice)] ? again : []
            }, sends: [.commit], failures: 0, phase: "committed"),
        Row(
            name: "committed, session up after expiry: ends, not counted, nothing sent", setup: started,
            input: { $0.sessionUp(now: t0.adding(seconds: PairingMachine.codeLifetime)) }, sends: [], failures: 0,
            phase: "idle"),
        Row(
            name: "committed, expiry: ends, not counted", setup: started,
            input: { $0.tick(now: t0.adding(seconds: PairingMachine.codeLifetime)) }, sends: [], failures: 0,
            phase: "idle"),
        Row(
            name: "committed, confirm: no code", setup: started,
            input: { $0.confirm(PairingCode(alice, nonce: aliceNonce, bob, nonce: bobNonce), now: t0) }, sends: [],
            failures: 0, phase: "committed"),
        Row(
            name: "revealed, the same commit again: nothing", setup: revealed,
            input: { $0.receive(commit(bobAttempt, bobNonce, from: bob), now: t0) }, sends: [], failures: 1,
            phase: "revealed"),
        Row(
            name: "revealed, a different commit: abort, ends (already counted)", setup: revealed,
            input: { $0.receive(commit(otherAttempt, otherNonce, from: bob), now: t0) }, sends: [.abort],
            failures: 1, phase: "idle"),
        Row(
            name: "revealed, the same attempt with another commitment: abort, ends", setup: revealed,
            input: { $0.receive(commit(bobAttempt, otherNonce, from: bob), now: t0) }, sends: [.abort],
            failures: 1, phase: "idle"),
        Row(
            name: "revealed, a reveal that does not match: abort, ends", setup: revealed,
            input: { $0.receive(reveal(bobAttempt, otherNonce), now: t0) }, sends: [.abort], failures: 1,
            phase: "idle"),
        Row(
            name: "revealed, a reveal of another attempt: ignored", setup: revealed,
            input: { $0.receive(reveal(otherAttempt, bobNonce), now: t0) }, sends: [], failures: 1,
            phase: "revealed"),
        Row(
            name: "revealed, the matching reveal: code", setup: revealed,
            input: { $0.receive(reveal(bobAttempt, bobNonce), now: t0) }, sends: [], failures: 1,
            phase: "codeReady"),
        Row(
            name: "revealed, abort of theirs: ends", setup: revealed,
            input: { $0.receive(.init(abort: bobAttempt, reason: "no"), now: t0) }, sends: [], failures: 1,
            phase: "idle"),
        Row(
            name: "revealed, session lost: ends", setup: revealed,
            input: { $0.sessionLost(now: t0) }, sends: [], failures: 1, phase: "idle"),
        Row(
            name: "revealed, session up: nothing (the nonce is out)", setup: revealed,
            input: { $0.sessionUp(now: t0) }, sends: [], failures: 1, phase: "revealed"),
        Row(
            name: "revealed, expiry: ends", setup: revealed,
            input: { $0.tick(now: t0.adding(seconds: PairingMachine.codeLifetime)) }, sends: [], failures: 1,
            phase: "idle"),
        Row(
            name: "code, the same commit again: nothing", setup: coded,
            input: { $0.receive(commit(bobAttempt, bobNonce, from: bob), now: t0) }, sends: [], failures: 1,
            phase: "codeReady"),
        Row(
            name: "code, a new commit: abort, ends", setup: coded,
            input: { $0.receive(commit(otherAttempt, otherNonce, from: bob), now: t0) }, sends: [.abort],
            failures: 1, phase: "idle"),
        Row(
            name: "code, the reveal again: nothing", setup: coded,
            input: { $0.receive(reveal(bobAttempt, bobNonce), now: t0) }, sends: [], failures: 1,
            phase: "codeReady"),
        Row(
            name: "code, session lost: the code stays", setup: coded,
            input: { $0.sessionLost(now: t0) }, sends: [], failures: 1, phase: "codeReady"),
        Row(
            name: "code, session up: nothing", setup: coded,
            input: { $0.sessionUp(now: t0) }, sends: [], failures: 1, phase: "codeReady"),
        Row(
            name: "code, wrong code: abort, ends", setup: coded,
            input: { $0.confirm(wrongCode, now: t0) }, sends: [.abort], failures: 1,
            phase: "idle"),
        Row(
            name: "code, right code: paired, the count resets", setup: coded,
            input: { $0.confirm(PairingCode(alice, nonce: aliceNonce, bob, nonce: bobNonce), now: t0) }, sends: [],
            failures: 0, phase: "idle"),
        Row(
            name: "code, expiry: ends", setup: coded,
            input: { $0.tick(now: t0.adding(seconds: PairingMachine.codeLifetime)) }, sends: [], failures: 1,
            phase: "idle"),
        Row(
            name: "locked, commit: noticed, not answered", setup: locked,
            input: { $0.receive(commit(bobAttempt, bobNonce, from: bob), now: t0) }, sends: [], failures: 0,
            phase: "locked"),
        Row(
            name: "locked, reveal: ignored", setup: locked,
            input: { $0.receive(reveal(bobAttempt, bobNonce), now: t0) }, sends: [], failures: 0, phase: "locked"),
        Row(
            name: "locked, start: refused", setup: locked,
            input: { $0.start(attemptID: aliceAttempt, nonce: aliceNonce, now: t0) }, sends: [], failures: 0,
            phase: "locked"),
        Row(
            name: "locked, confirm: refused", setup: locked,
            input: { $0.confirm(PairingCode(alice, nonce: aliceNonce, bob, nonce: bobNonce), now: t0) }, sends: [],
            failures: 0, phase: "locked"),
        Row(
            name: "locked, session lost: still locked", setup: locked,
            input: { $0.sessionLost(now: t0) }, sends: [], failures: 0, phase: "locked"),
        Row(
            name: "locked, session up: nothing", setup: locked,
            input: { $0.sessionUp(now: t0) }, sends: [], failures: 0, phase: "locked"),
        Row(
            name: "locked, its time passes: the lock lifts", setup: locked,
            input: { $0.tick(now: lockedUntil) }, sends: [], failures: 0, phase: "idle"),
    ]

    @Test("every phase against every input", arguments: rows)
    func table(_ row: Row) {
        var machine = PairingMachine(me: Self.alice, peer: Self.bob)
        row.setup(&machine)
        let actions = row.input(&machine)
        #expect(actions.sentFrames.map(\.step) == row.sends)
        #expect(machine.lockout.failures == row.failures)
        #expect(machine.phaseName == row.phase)
        // Every attempt that ends without a pairing says so.
        var probe = PairingMachine(me: Self.alice, peer: Self.bob)
        row.setup(&probe)
        if probe.attemptID != nil, machine.attemptID == nil, !actions.contains(.paired) {
            #expect(actions.contains { if case .failed = $0 { true } else { false } })
        }
        // Only a reveal counts.
        let counted = actions.contains { if case .counted = $0 { true } else { false } }
        #expect(counted == actions.sentFrames.contains { $0.step == .reveal })
    }

    @Test("three failed attempts that revealed lock pairing for ten minutes, the peer's commits too; then it lifts")
    func lockout() throws {
        var b = PairingMachine(me: Self.bob, peer: Self.alice)
        var now = Self.t0
        // Attempts that revealed nothing count for nothing: an abort, an expiry, lost sessions.
        for _ in 0..<5 {
            _ = b.start(attemptID: UUID(), nonce: Self.bobNonce, now: now)
            let attempt = try #require(b.attemptID)
            _ = b.sessionLost(now: now)
            #expect(
                b.receive(.init(abort: attempt, reason: "no"), now: now).contains(
                    .failed("the peer ended the pairing: no")))
            _ = b.start(attemptID: UUID(), nonce: Self.bobNonce, now: now)
            now = now.adding(seconds: PairingMachine.codeLifetime)
            #expect(!b.tick(now: now).contains { if case .counted = $0 { true } else { false } })
        }
        #expect(b.lockout == .init())
        // An abort after the reveal, an expiry after the reveal, and a wrong code.
        var attempt = UUID()
        _ = b.start(attemptID: attempt, nonce: Self.bobNonce, now: now)
        #expect(
            b.receive(Self.commit(Self.aliceAttempt, Self.aliceNonce, from: Self.alice), now: now).contains(
                .counted(failures: 1)))
        _ = b.receive(.init(abort: attempt, reason: "no"), now: now)
        attempt = UUID()
        _ = b.start(attemptID: attempt, nonce: Self.bobNonce, now: now)
        #expect(
            b.receive(Self.commit(Self.aliceAttempt, Self.aliceNonce, from: Self.alice), now: now).contains(
                .counted(failures: 2)))
        now = now.adding(seconds: PairingMachine.codeLifetime)
        #expect(b.tick(now: now).contains(.failed("the peer did not reveal its nonce in time")))
        _ = b.start(attemptID: UUID(), nonce: Self.bobNonce, now: now)
        let afterCommit = b.receive(Self.commit(Self.aliceAttempt, Self.aliceNonce, from: Self.alice), now: now)
        #expect(afterCommit.contains(.counted(failures: 3)))
        _ = b.receive(Self.reveal(Self.aliceAttempt, Self.aliceNonce), now: now)
        let actions = b.confirm(Self.wrongCode, now: now)
        let until = now.adding(seconds: PairingMachine.lockoutDuration)
        #expect(actions.contains(.lockedOut(until: until)) && actions.contains(.refuse(.locked(until: until))))
        #expect(b.phase == .locked(until: until))
        #expect(b.lockout == .init(failures: 0, lockedUntil: until))

        // Locked: the right code, a local start, or the peer's commit get nothing.
        #expect(b.start(attemptID: UUID(), nonce: Self.bobNonce, now: now) == [.refuse(.locked(until: until))])
        #expect(b.receive(Self.commit(UUID(), Self.aliceNonce, from: Self.alice), now: now) == [.peerWantsToPair])

        // A restart restores the lock from what was persisted.
        var restored = PairingMachine(me: Self.bob, peer: Self.alice, lockout: b.lockout)
        #expect(restored.start(attemptID: UUID(), nonce: Self.bobNonce, now: now) == [.refuse(.locked(until: until))])

        // Ten minutes later pairing works again, with a fresh count.
        #expect(restored.tick(now: until) == [])
        #expect(restored.phase == .idle && restored.lockout == .init())
        #expect(restored.start(attemptID: UUID(), nonce: Self.bobNonce, now: until).sentFrames.map(\.step) == [.commit])
    }

    @Test("a wrong code ends the attempt; the refusal says how many attempts are left")
    func wrongCodeEnds() throws {
        var a = PairingMachine(me: Self.alice, peer: Self.bob)
        Self.coded(&a)
        let actions = a.confirm(Self.wrongCode, now: Self.t0)
        #expect(actions.contains(.refuse(.wrongCode(remaining: 2))))
        #expect(a.code == nil)
        #expect(a.confirm(Self.wrongCode, now: Self.t0) == [.refuse(.noCode)])
    }

    @Test("a commit reflected back at its sender never verifies")
    func reflection() {
        var a = PairingMachine(me: Self.alice, peer: Self.bob)
        let ours = a.start(attemptID: Self.aliceAttempt, nonce: Self.aliceNonce, now: Self.t0).sentFrames
        let answer = a.receive(ours[0], now: Self.t0).sentFrames
        #expect(answer.map(\.step) == [.commit, .reveal])
        // The peer replays alice's own reveal: it matches alice's commitment, not one made by the peer.
        let replayed = a.receive(answer[1], now: Self.t0)
        #expect(replayed.contains(.failed("the peer's nonce did not match its commitment")))
        #expect(a.code == nil)
    }

    @Test("pair frames: canonical JSON both ways; bad values and the removed nonce step are refused")
    func frames() throws {
        let codec = FrameCodec()
        let id = try #require(UUID(uuidString: "6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"))
        let commit = PaymentMessage.pair(.init(pairingID: id, step: .commit, value: Self.aliceNonce))
        let body = try codec.encodeBody(commit)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"commit","type":"pair","value":"#
                + "\"\(String(repeating: "01", count: 32))\"}")
        #expect(try codec.decodeBody(body) == commit)
        let abort = PaymentMessage.pair(.init(abort: id, reason: "no"))
        #expect(try codec.decodeBody(try codec.encodeBody(abort)) == abort)
        for bad in [
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"commit","value":"01"}"#,
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"reveal","value":"\#(String(repeating: "AB", count: 32))"}"#,
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"nonce","value":"\#(String(repeating: "02", count: 32))"}"#,
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"shout","reason":""}"#,
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"abort"}"#,
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try codec.decodeBody(Array(bad.utf8)) }
        }
    }
}

extension PairingMachine {
    /// The phase's name, for tables.
    var phaseName: String {
        switch phase {
        case .idle: "idle"
        case .committed: "committed"
        case .revealed: "revealed"
        case .codeReady: "codeReady"
        case .locked: "locked"
        }
    }
}

extension [PairingMachine.Action] {
    var sentFrames: [PaymentMessage.Pairing] {
        compactMap { if case .send(let frame) = $0 { frame } else { nil } }
    }
}

func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}
