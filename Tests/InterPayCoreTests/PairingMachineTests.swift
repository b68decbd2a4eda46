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

    @Test("the code and the commitment match the worked example of PROTOCOL.md §7.9")
    func knownAnswer() {
        let code = PairingCode(
            initiator: Self.alice, responder: Self.bob, initiatorNonce: Self.aliceNonce, responderNonce: Self.bobNonce)
        #expect(code.digits == "210476")
        #expect(code.description == "210 476")
        // Roles and nonces are ordered: swapping them gives another code.
        let swapped = PairingCode(
            initiator: Self.bob, responder: Self.alice, initiatorNonce: Self.bobNonce, responderNonce: Self.aliceNonce)
        #expect(swapped.digits == "255897")
        #expect(
            PaymentMessage.Pairing(pairingID: UUID(), step: .commit, value: PairingCode.commitment(to: Self.aliceNonce))
                .value == hexBytes("328b0612f3b32ad917496ae9a92a58b9b9722f5954ec5dd01285bdeb415e2102"))
    }

    @Test("typed codes: six digits, spaces and dashes ignored")
    func userInput() {
        #expect(PairingCode(userInput: "210 476")?.digits == "210476")
        #expect(PairingCode(userInput: "210-476")?.digits == "210476")
        for bad in ["", "21047", "2104760", "21o476", "２１０４７６", "-21047"] {
            #expect(PairingCode(userInput: bad) == nil, "\(bad)")
        }
    }

    @Test("commit, nonce, reveal: both sides show the same code; the right code pairs")
    func happyPath() throws {
        var (a, b) = (PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.bob, peer: Self.alice))
        let run = try Exchange.run(initiator: &a, responder: &b, now: Self.t0)
        #expect(run.initiatorCode == run.responderCode)
        #expect(a.code?.code == run.initiatorCode && b.code?.code == run.responderCode)
        #expect(a.code?.expiresAt == Self.t0.adding(seconds: PairingMachine.codeLifetime))

        #expect(b.confirm(run.responderCode, now: Self.t0.adding(seconds: 30)) == [.paired])
        #expect(b.phase == .idle)
        #expect(a.confirm(run.initiatorCode, now: Self.t0.adding(seconds: 60)) == [.paired])
    }

    @Test("three wrong codes lock pairing for ten minutes; the lock also refuses the peer; then it lifts")
    func lockout() throws {
        var (a, b) = (PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.bob, peer: Self.alice))
        let run = try Exchange.run(initiator: &a, responder: &b, now: Self.t0)
        let wrong = try #require(PairingCode(userInput: run.responderCode.digits == "000000" ? "000001" : "000000"))
        #expect(b.confirm(wrong, now: Self.t0) == [.refuse(.wrongCode(remaining: 2))])
        #expect(b.confirm(wrong, now: Self.t0) == [.refuse(.wrongCode(remaining: 1))])
        let actions = b.confirm(wrong, now: Self.t0)
        let until = Self.t0.adding(seconds: PairingMachine.lockoutDuration)
        #expect(actions.contains(.lockedOut(until: until)) && actions.contains(.refuse(.locked(until: until))))
        #expect(actions.contains { if case .send(let frame) = $0 { frame.step == .abort } else { false } })
        #expect(b.phase == .locked(until: until))

        // Locked: even the right code, a local start, or the peer's commit is refused.
        #expect(b.confirm(run.responderCode, now: Self.t0.adding(seconds: 1)) == [.refuse(.locked(until: until))])
        #expect(b.start(pairingID: UUID(), nonce: Self.bobNonce, now: Self.t0) == [.refuse(.locked(until: until))])
        let commit = PaymentMessage.Pairing(pairingID: UUID(), step: .commit, value: PairingCode.commitment(to: [7]))
        let answer = b.receive(commit, nonce: Self.bobNonce, now: Self.t0.adding(seconds: 599))
        #expect(answer.count == 1)
        if case .send(let frame) = answer.first { #expect(frame.step == .abort) } else { Issue.record("no abort") }

        // Ten minutes later pairing works again.
        #expect(b.tick(now: until) == [])
        #expect(b.phase == .idle)
        var a2 = PairingMachine(me: Self.alice, peer: Self.bob)
        let again = try Exchange.run(initiator: &a2, responder: &b, now: until)
        #expect(b.confirm(again.responderCode, now: until) == [.paired])
    }

    @Test("a right code resets the count of wrong ones")
    func rightCodeResets() throws {
        var (a, b) = (PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.bob, peer: Self.alice))
        var run = try Exchange.run(initiator: &a, responder: &b, now: Self.t0)
        let wrong = try #require(PairingCode(userInput: run.responderCode.digits == "000000" ? "000001" : "000000"))
        _ = b.confirm(wrong, now: Self.t0)
        _ = b.confirm(wrong, now: Self.t0)
        #expect(b.confirm(run.responderCode, now: Self.t0) == [.paired])
        #expect(b.wrongCodes == 0)
        a = PairingMachine(me: Self.alice, peer: Self.bob)
        run = try Exchange.run(initiator: &a, responder: &b, now: Self.t0)
        #expect(b.confirm(wrong, now: Self.t0) == [.refuse(.wrongCode(remaining: 2))])
    }

    @Test("a code expires after two minutes; a pairing that never reaches a code is abandoned too")
    func expiry() throws {
        var (a, b) = (PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.bob, peer: Self.alice))
        let run = try Exchange.run(initiator: &a, responder: &b, now: Self.t0)
        let late = Self.t0.adding(seconds: PairingMachine.codeLifetime)
        #expect(
            b.confirm(run.responderCode, now: late) == [.failed("the verification code expired"), .refuse(.noCode)])
        #expect(a.tick(now: late) == [.failed("the verification code expired")])
        #expect(a.code == nil)

        var c = PairingMachine(me: Self.alice, peer: Self.bob)
        _ = c.start(pairingID: UUID(), nonce: Self.aliceNonce, now: Self.t0)
        #expect(c.tick(now: Self.t0.adding(seconds: 119)) == [])
        #expect(c.tick(now: late) == [.failed("the peer did not answer in time")])
        #expect(c.phase == .idle)
    }

    @Test("a reveal that does not match its commitment aborts the pairing")
    func commitmentMismatch() {
        var b = PairingMachine(me: Self.bob, peer: Self.alice)
        let id = UUID()
        let commit = PaymentMessage.Pairing(
            pairingID: id, step: .commit, value: PairingCode.commitment(to: Self.aliceNonce))
        #expect(b.receive(commit, nonce: Self.bobNonce, now: Self.t0).count == 1)
        let otherNonce = [UInt8](repeating: 9, count: 32)
        let actions = b.receive(
            .init(pairingID: id, step: .reveal, value: otherNonce), nonce: Self.bobNonce, now: Self.t0)
        #expect(actions.contains(.failed("the peer's nonce did not match its commitment")))
        #expect(actions.contains { if case .send(let frame) = $0 { frame.step == .abort } else { false } })
        #expect(b.phase == .idle && b.code == nil)
    }

    @Test("both users start at once: the attempt with the lower pairing ID goes on, and both get one code")
    func crossingStarts() throws {
        var (a, b) = (PairingMachine(me: Self.alice, peer: Self.bob), PairingMachine(me: Self.bob, peer: Self.alice))
        let low = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001"))
        let high = try #require(UUID(uuidString: "ffffffff-0000-4000-8000-000000000001"))
        let aCommit = try #require(a.start(pairingID: high, nonce: Self.aliceNonce, now: Self.t0).sentFrames.first)
        let bCommit = try #require(b.start(pairingID: low, nonce: Self.bobNonce, now: Self.t0).sentFrames.first)
        // Each receives the other's commit: alice gives way (bob's ID is lower), bob ignores alice's.
        let aAnswer = a.receive(bCommit, nonce: Self.aliceNonce, now: Self.t0).sentFrames
        #expect(b.receive(aCommit, nonce: Self.bobNonce, now: Self.t0).isEmpty)
        #expect(aAnswer.map(\.step) == [.nonce])
        let reveal = b.receive(try #require(aAnswer.first), nonce: Self.bobNonce, now: Self.t0).sentFrames
        #expect(reveal.map(\.step) == [.reveal])
        _ = a.receive(try #require(reveal.first), nonce: Self.aliceNonce, now: Self.t0)
        #expect(a.code != nil && a.code?.code == b.code?.code)
    }

    @Test("an abort or a lost session ends the pairing in progress; stray steps are answered with abort")
    func abortAndStrays() {
        var a = PairingMachine(me: Self.alice, peer: Self.bob)
        let id = UUID()
        _ = a.start(pairingID: id, nonce: Self.aliceNonce, now: Self.t0)
        #expect(a.receive(.init(abort: UUID(), reason: "other"), nonce: [], now: Self.t0) == [], "not this pairing")
        #expect(
            a.receive(.init(abort: id, reason: "user said no"), nonce: [], now: Self.t0) == [
                .failed("the peer ended the pairing: user said no")
            ])
        #expect(a.phase == .idle)
        _ = a.start(pairingID: id, nonce: Self.aliceNonce, now: Self.t0)
        #expect(a.sessionLost() == [.failed("the session with the peer ended")])

        let stray = a.receive(.init(pairingID: UUID(), step: .reveal, value: Self.bobNonce), nonce: [], now: Self.t0)
        #expect(stray.sentFrames.map(\.step) == [.abort])
        #expect(a.confirm(PairingCode(userInput: "123456")!, now: Self.t0) == [.refuse(.noCode)])
    }

    @Test("pair frames: canonical JSON both ways; bad values are refused")
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
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"nonce","value":"\#(String(repeating: "AB", count: 32))"}"#,
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"shout","reason":""}"#,
            #"{"type":"pair","pairingID":"6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","step":"abort"}"#,
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try codec.decodeBody(Array(bad.utf8)) }
        }
    }
}

/// Runs commit → nonce → reveal between two machines and returns both codes.
private enum Exchange {
    struct Result {
        var initiatorCode: PairingCode
        var responderCode: PairingCode
    }

    static func run(initiator: inout PairingMachine, responder: inout PairingMachine, now: Timestamp) throws -> Result {
        let commit = try #require(
            initiator.start(pairingID: UUID(), nonce: PairingCode.randomNonce(), now: now).sentFrames.first)
        #expect(commit.step == .commit)
        let nonce = try #require(responder.receive(commit, nonce: PairingCode.randomNonce(), now: now).sentFrames.first)
        #expect(nonce.step == .nonce)
        let afterNonce = initiator.receive(nonce, nonce: PairingCode.randomNonce(), now: now)
        let reveal = try #require(afterNonce.sentFrames.first)
        #expect(reveal.step == .reveal)
        let afterReveal = responder.receive(reveal, nonce: PairingCode.randomNonce(), now: now)
        return Result(
            initiatorCode: try #require(afterNonce.shownCodes.first),
            responderCode: try #require(afterReveal.shownCodes.first))
    }
}

extension [PairingMachine.Action] {
    fileprivate var sentFrames: [PaymentMessage.Pairing] {
        compactMap { if case .send(let frame) = $0 { frame } else { nil } }
    }

    fileprivate var shownCodes: [PairingCode] {
        compactMap { if case .showCode(let code, _) = $0 { code } else { nil } }
    }
}

private func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}
