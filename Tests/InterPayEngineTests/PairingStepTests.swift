import InterPayCore
import InterPayTestSupport
import Logging
import Synchronization
import Testing

@testable import InterPayEngine
@testable import InterPayStore

/// A link that writes down, in order, what the engine tells it about pairing and the types of the frames it hands
/// over, and passes everything on to a `MemoryLink`.
final class RecordingLink: PaymentLink {
    let inner: MemoryLink
    private let entries = Mutex<[String]>([])

    init(_ inner: MemoryLink) { self.inner = inner }

    var log: [String] { entries.withLock { $0 } }
    var capabilities: [String] { inner.capabilities }
    var name: String { inner.name }

    func session(with peer: PeerID) -> LinkSession? { inner.session(with: peer) }

    func send(_ bodies: [[UInt8]], on session: LinkSession) -> Bool {
        let codec = FrameCodec()
        let types = bodies.map { body in (try? codec.decodeBody(body))?.type.rawValue ?? "?" }
        entries.withLock { $0 += types.map { "send \($0)" } }
        return inner.send(bodies, on: session)
    }

    func setPairingInProgress(_ inProgress: Bool, for peer: PeerID) {
        entries.withLock { $0.append("in progress \(inProgress)") }
    }

    func trustChanged(for peer: PeerID) async {
        entries.withLock { $0.append("trust changed") }
    }
}

/// Pairing as engine steps (`PaymentEngine+Pairing`) over an in-memory link: what the link is told and when, and
/// what the ledger keeps.
@Suite("Pairing as engine steps", .tearsDown, .serialized)
struct PairingStepTests {
    @Test("an attempt in progress is told to the link before its first frame leaves, its end after; a pairing too")
    func linkIsTold() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let aliceID = PeerID(subjectPublicKeyInfoDER: Array("key of alice".utf8))
        let memory = MemoryLink(me: aliceID, name: "alice", capabilities: [PaymentMessage.Pairing.capability])
        let link = RecordingLink(memory)
        let database = try AppDatabase(path: directory.url.appending(path: "ledger.sqlite").path)
        var logger = Logger(label: "test.alice")
        logger.logLevel = .critical
        let alice = PaymentEngine(me: aliceID, database: database, link: link, logger: logger)
        let pump = Task { for await event in memory.events { await alice.handle(event) } }
        let bob = try MemoryNode("bob", capabilities: [PaymentMessage.Pairing.capability])
        MemoryLink.connect(memory, bob.link)
        await eventually("both sides hold the session") {
            memory.session(with: bob.id) != nil && bob.link.session(with: aliceID) != nil
        }

        let started = try await alice.startPairing(with: bob.id, wait: .milliseconds(100))
        #expect(started.phase == .waiting)
        let told = try #require(link.log.firstIndex(of: "in progress true"))
        let commit = try #require(link.log.firstIndex(of: "send pair"))
        #expect(told < commit, "\(link.log)")
        await eventually("bob's user is told") { await bob.engine.pairingStatus(of: aliceID).phase == .requested }

        // The attempt's time runs out: the link hears that it ended (nothing was revealed, so nothing counts).
        let later = Timestamp.now.adding(seconds: PairingMachine.codeLifetime + 1)
        await alice.tick(now: later)
        #expect(link.log.last == "in progress false", "\(link.log)")
        #expect(await alice.pairingStatus(of: bob.id, now: later).phase == .idle)

        // Both users start and confirm: the pairing is in the ledger, and the link hears the trust changed.
        _ = try await alice.startPairing(with: bob.id, wait: .milliseconds(100))
        let code = try #require(try await bob.engine.startPairing(with: aliceID).code)
        await eventually("alice has the code") { await alice.pairingStatus(of: bob.id).code == code }
        // The attempt revealed its nonce: it counts until the right code clears it, written in the same step.
        #expect(try await database.pairingLockout(for: bob.id)?.failures == 1)
        let record = try await alice.confirmPairing(code, with: bob.id)
        #expect(record.peerID == bob.id && record.name == "bob")
        #expect(try await database.trustedPeer(id: bob.id) != nil)
        #expect(link.log.suffix(2) == ["in progress false", "trust changed"], "\(link.log)")
        #expect(try await database.pairingLockout(for: bob.id) == nil, "a right code clears the count")

        memory.finish()
        await pump.value
        await bob.stop()
    }
}
