import Foundation
import GRDB
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayEngine
@testable import InterPayStore

/// What a hostile peer could leave behind in the engine and its ledger, frame after frame or key after key
/// (SECURITY.md, "Resource exhaustion"): each test failed before its bound.
@Suite("What a peer leaves behind", .tearsDown, .serialized, .timeLimit(.minutes(1)))
struct PeerResidueTests {
    /// A peer without an engine, speaking frames to `node` over a `MemoryLink`, reading its answers.
    struct RawPeer {
        let link: MemoryLink
        let session: LinkSession
        let codec = FrameCodec()
        var answers: AsyncStream<LinkEvent>.Iterator

        init(_ name: String, to node: MemoryNode) throws {
            link = MemoryLink(me: PeerID(subjectPublicKeyInfoDER: Array("key of \(name)".utf8)), name: name)
            MemoryLink.connect(link, node.link)
            session = try #require(link.session(with: node.id))
            answers = link.events.makeAsyncIterator()
        }

        /// Sends `message` and returns the first frame that comes back.
        mutating func send(_ message: PaymentMessage) async throws -> PaymentMessage? {
            link.send([try codec.encodeBody(message)], on: session)
            return await next()
        }

        /// The next frame that comes.
        mutating func next() async -> PaymentMessage? {
            while let event = await answers.next() {
                if case .frame(let answer, _) = event { return answer }
            }
            return nil
        }

        func request(to payer: PeerID, series: SeriesLink? = nil, id: UUID = UUID()) throws -> PaymentMessage {
            .request(
                .init(
                    messageID: UUID(),
                    payment: try PaymentRequest(
                        id: id, payee: link.me, payer: payer, amount: try pesos(), memo: "", category: nil,
                        createdAt: .now, expiresAt: Timestamp.now.adding(seconds: 600), series: series)))
        }
    }

    static func seenRows(_ node: MemoryNode) throws -> Int {
        try node.database.transact([
            { ledger in try Int.fetchOne(ledger.db, sql: "SELECT COUNT(*) FROM seenMessage") ?? -1 }
        ])[0].get()
    }

    @Test("decisions repeated under new message IDs are answered from the payment's state and store nothing")
    func repeatedDecisionsStoreNothing() async throws {
        let bob = try MemoryNode("bob")
        var peer = try RawPeer("mallory", to: bob)
        let request = try peer.request(to: bob.id)
        guard case .request(let frame) = request, case .ack? = try await peer.send(request) else {
            Issue.record("no ack of the request")
            return
        }
        let paymentID = frame.payment.id
        let firstCancel = PaymentMessage.cancel(.init(messageID: UUID(), paymentID: paymentID))
        guard case .ack(let cancelled)? = try await peer.send(firstCancel) else {
            Issue.record("no ack of the cancel")
            return
        }
        #expect(cancelled.state == .cancelled)
        #expect(try Self.seenRows(bob) == 2, "the request and the cancel that changed the payment are remembered")
        for _ in 0..<200 {
            let again = PaymentMessage.cancel(.init(messageID: UUID(), paymentID: paymentID))
            guard case .ack(let answer)? = try await peer.send(again) else {
                Issue.record("no ack of a repeated cancel")
                return
            }
            #expect(answer.state == .cancelled && answer.ackedID == again.messageID)
        }
        let resentRequest = try peer.request(to: bob.id, id: paymentID)
        guard case .ack(let state)? = try await peer.send(resentRequest) else {
            Issue.record("no ack of the request sent again")
            return
        }
        #expect(state.state == .cancelled && state.reasonCode == .alreadyCancelled)
        #expect(try Self.seenRows(bob) == 2, "200 repeated cancels and a repeated request left no row")
        // The frame that changed the payment still gets its stored answer, byte for byte.
        guard case .ack(let replayed)? = try await peer.send(firstCancel) else {
            Issue.record("no answer to the replay")
            return
        }
        #expect(replayed == cancelled)
        peer.link.finish()
        await bob.stop()
    }

    @Test("the engine forgets a peer's session when it goes down")
    func sessionStateForgotten() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        _ = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        #expect(alice.engine.sessionStateCount == 1 && bob.engine.sessionStateCount == 1)
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("both engines handled the session's end") {
            alice.engine.sessionStateCount == 0 && bob.engine.sessionStateCount == 0
        }
        #expect(alice.engine.sessionStateCount == 0 && bob.engine.sessionStateCount == 0)
        await alice.stop()
        await bob.stop()
    }

    @Test("accept_from = paired: requests of a peer not paired naming one series period are each refused, none fails")
    func refusedRequestsDropTheirSeriesLink() async throws {
        // Both capabilities, so that the link is dropped by the refusal, not for a session without subscriptions.
        let bob = try MemoryNode(
            "bob", capabilities: [PaymentMessage.receiptsCapability, PaymentMessage.subscriptionsCapability],
            acceptFrom: .paired)
        var peer = try RawPeer("mallory", to: bob)
        let link = SeriesLink(seriesID: UUID(), index: 0)
        for attempt in 0..<3 {
            // Each is stored and acknowledged (pending), then rejected in the same commit. Before, every request
            // after the first broke the unique index on series and period: an `internal` error, and an error line.
            let request = try peer.request(to: bob.id, series: link)
            let answer = try await peer.send(request)
            guard case .ack(let ack)? = answer, case .reject(let rejection)? = await peer.next() else {
                Issue.record("attempt \(attempt): \(String(describing: answer))")
                return
            }
            guard case .request(let frame) = request else { return }
            #expect(ack.ackedID == frame.messageID && rejection.paymentID == frame.payment.id, "attempt \(attempt)")
            #expect(rejection.reason == PaymentEngine.notPairedReason)
        }
        peer.link.finish()
        await bob.stop()
    }
}
