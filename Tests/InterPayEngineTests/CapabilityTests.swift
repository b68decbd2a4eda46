import Foundation
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

/// Frames and commands of a capability a session does not speak (PROTOCOL.md §14; SECURITY.md T-CAPS).
@Suite("Capabilities enforced", .tearsDown, .serialized)
struct CapabilityTests {
    static let both = [PaymentMessage.receiptsCapability, PaymentMessage.subscriptionsCapability]

    /// A peer without an engine that announced `capabilities`: the test writes its frames and reads the answers.
    struct RawPeer {
        let link: MemoryLink
        let session: LinkSession
        let codec = FrameCodec()
        var answers: AsyncStream<LinkEvent>.Iterator

        init(to node: MemoryNode, capabilities: [String]) throws {
            link = MemoryLink(
                me: PeerID(subjectPublicKeyInfoDER: Array("key of an old peer".utf8)), name: "old",
                capabilities: capabilities)
            answers = link.events.makeAsyncIterator()
            MemoryLink.connect(link, node.link)
            session = try #require(link.session(with: node.id))
        }

        var id: PeerID { link.me }

        func send(_ message: PaymentMessage) throws {
            link.send([try codec.encodeBody(message)], on: session)
        }

        /// The next frame from the node, skipping session events.
        mutating func next() async -> PaymentMessage? {
            while let event = await answers.next() {
                if case .frame(let message, _) = event { return message }
            }
            return nil
        }

        /// The next frame from the node that is an ack or error naming `messageID`.
        mutating func answer(to messageID: UUID) async -> PaymentMessage? {
            while let message = await next() {
                switch message {
                case .ack(let ack) where ack.ackedID == messageID: return message
                case .error(let error) where error.ref == messageID: return message
                default: continue
                }
            }
            return nil
        }
    }

    static func isUnknownType(_ message: PaymentMessage?, ref: UUID) -> Bool {
        guard case .error(let error)? = message else { return false }
        return error.code == .unknownType && error.ref == ref
    }

    /// Paid, settle and series frames on a session whose peer did not announce the capability are answered
    /// unknown-type and change nothing.
    @Test("frames of a capability the peer did not announce are unknown-type", .timeLimit(.minutes(1)))
    func framesRefused() async throws {
        let alice = try MemoryNode("alice", signer: ReceiptSigner(), capabilities: Self.both)
        var peer = try RawPeer(to: alice, capabilities: [])
        await eventually("alice holds the session") { alice.link.session(with: peer.id) != nil }

        // Alice pays the old peer: its settle is refused.
        let request = try PaymentRequest(
            id: UUID(), payee: peer.id, payer: alice.id, amount: try pesos(), memo: "", category: nil,
            createdAt: .now, expiresAt: Timestamp.now.adding(seconds: 600))
        let requestID = UUID()
        try peer.send(.request(.init(messageID: requestID, payment: request)))
        _ = await peer.answer(to: requestID)
        _ = try await alice.engine.decide(.accept, paymentID: request.id, wait: .zero)
        guard case .accept(let accept)? = await peer.next() else {
            Issue.record("no accept")
            return
        }
        try peer.send(.ack(.init(ackedID: accept.messageID, paymentID: request.id, state: .accepted, reasonCode: nil)))
        let settleID = UUID()
        try peer.send(.settle(.init(messageID: settleID, paymentID: request.id, receipt: nil)))
        let settleAnswer = await peer.answer(to: settleID)
        #expect(Self.isUnknownType(settleAnswer, ref: settleID), "\(String(describing: settleAnswer))")
        #expect(try await alice.database.payment(id: request.id)?.state == .accepted)

        // The old peer pays alice: its paid is refused.
        let mine = try await alice.engine.request(
            from: peer.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600)
        let acceptID = UUID()
        try peer.send(.accept(.init(messageID: acceptID, paymentID: mine.id)))
        _ = await peer.answer(to: acceptID)
        #expect(try await alice.database.payment(id: mine.id)?.state == .accepted)
        let paidID = UUID()
        try peer.send(.paid(.init(messageID: paidID, paymentID: mine.id, method: .cash, reference: nil)))
        #expect(Self.isUnknownType(await peer.answer(to: paidID), ref: paidID))
        #expect(try await alice.database.payment(id: mine.id)?.state == .accepted)

        // A series offer from it is refused and not stored.
        let offer = try SeriesOffer(
            payee: peer.id, payer: alice.id, amount: try pesos(), period: .month, start: .now, count: nil,
            timeZone: "UTC", periodSeconds: nil, memo: "gym", category: nil)
        let offerID = UUID()
        try peer.send(.series(.init(action: .offer, messageID: offerID, seriesID: UUID(), offer: offer)))
        let offerAnswer = await peer.next()
        #expect(Self.isUnknownType(offerAnswer, ref: offerID), "\(String(describing: offerAnswer))")
        #expect(try await alice.database.seriesList().isEmpty)
        await alice.stop()
    }

    @Test("approving or declining a series with a peer whose session lacks subscriptions fails and changes nothing")
    func seriesCommandsRefused() async throws {
        let alice = try MemoryNode("alice", capabilities: Self.both)
        let bob = try MemoryNode("bob", capabilities: [PaymentMessage.receiptsCapability])
        MemoryLink.connect(alice.link, bob.link)
        await eventually("the session") { alice.link.session(with: bob.id) != nil }
        // An offer bob made while his daemon still announced subscriptions.
        let offer = try SeriesOffer(
            payee: bob.id, payer: alice.id, amount: try pesos(), period: .month, start: .now, count: nil,
            timeZone: "UTC", periodSeconds: nil, memo: "gym", category: nil)
        var change = LedgerChange()
        change.series = SeriesRecord(id: UUID(), offer: offer, role: .payer, state: .offered, now: .now)
        try await alice.database.apply(change)
        let id = try #require(change.series?.id)
        for command in [PaymentEngine.SeriesCommand.approve(cap: nil), .decline(reason: nil)] {
            await #expect(throws: EngineError.self, "\(command)") {
                try await alice.engine.command(command, seriesID: id)
            }
        }
        let kept = try #require(try await alice.database.seriesList().first { $0.series.id == id })
        #expect(kept.series.state == .offered && kept.series.outMessageID == nil)
        // Ending stays possible: it stops this side's automatic acceptance whether or not the peer hears.
        #expect(try await alice.engine.command(.end(reason: nil), seriesID: id).state == .ended)
        await alice.stop()
        await bob.stop()
    }
}
