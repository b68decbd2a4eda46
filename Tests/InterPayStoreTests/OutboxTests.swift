import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Outbox: resend order, acks, attempts, pruning", .tearsDown)
struct OutboxTests {
    /// Queues `count` accept frames for one payment each, for `peer`, with the given `retryUntil`.
    static func queue(
        _ count: Int, for peer: PeerID, retryUntil: Timestamp?, in database: AppDatabase
    ) async throws -> [OutboxRecord] {
        var queued: [OutboxRecord] = []
        for index in 0..<count {
            let payment = try await storePayment(
                in: database, role: .payer, peer: peer, state: .accepted, confirmed: false,
                createdAt: at(Int64(index)))
            let frame = PaymentMessage.accept(.init(messageID: UUID(), paymentID: payment.id))
            queued += try await database.apply(
                LedgerChange(outbox: [
                    try OutboxRecord(message: frame, to: peer, createdAt: at(), retryUntil: retryUntil)
                ]))
        }
        return queued
    }

    @Test("frames come back per peer in the order they were queued, across changes")
    func ordering() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let carol = try Peers.carol()
        let forBob1 = try await Self.queue(2, for: bob, retryUntil: nil, in: database)
        let forCarol = try await Self.queue(1, for: carol, retryUntil: nil, in: database)
        let forBob2 = try await Self.queue(2, for: bob, retryUntil: nil, in: database)

        let bobs = try await database.outbox(peerID: bob)
        #expect(bobs.map(\.messageID) == (forBob1 + forBob2).map(\.messageID))
        #expect(bobs.map(\.seq) == bobs.map(\.seq).sorted())
        #expect(Set(bobs.map(\.seq)).count == 4)
        #expect(try await database.outbox(peerID: carol).map(\.messageID) == forCarol.map(\.messageID))
        #expect(try await database.peersWithOutbox() == [bob, carol].sorted { $0.description < $1.description })

        // Several frames in one change keep the order given.
        let payment = try await storePayment(in: database, role: .payee, peer: bob, state: .pending)
        let request = PaymentMessage.cancel(.init(messageID: UUID(), paymentID: payment.id))
        let cancel = PaymentMessage.cancel(.init(messageID: UUID(), paymentID: payment.id))
        let queued = try await database.apply(
            LedgerChange(outbox: [
                try OutboxRecord(message: request, to: bob, createdAt: at(), retryUntil: nil),
                try OutboxRecord(message: cancel, to: bob, createdAt: at(), retryUntil: nil),
            ]))
        #expect(queued.map(\.messageID) == [request.messageID, cancel.messageID].compactMap { $0 })
        #expect(try await database.outbox(peerID: bob).suffix(2).map(\.messageID) == queued.map(\.messageID))
    }

    @Test("the stored frame is the codec's body, byte for byte")
    func frameBytes() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let request = try makeRequest(payee: try Peers.us(), payer: bob, memo: "Ya te pagué / \"ok\" \\ \u{2028}")
        let change = try outgoingRequestChange(request, now: at())
        try await database.apply(change)
        let stored = try #require(try await database.outbox(peerID: bob).first)
        let message = try stored.message
        #expect(stored.frame == Data(try FrameCodec().encodeBody(message)))
        #expect(stored.retryUntil == request.expiresAt)
        #expect(stored.attempts == 0)
        #expect(stored.lastSentAt == nil)
        guard case .request(let frame) = message else {
            Issue.record("not a request frame")
            return
        }
        #expect(frame.payment == request)
    }

    @Test("frames that are never acknowledged cannot be queued")
    func onlyAcknowledgedFrames() throws {
        #expect {
            _ = try OutboxRecord(message: .ping(nonce: 1), to: try Peers.bob(), createdAt: at(), retryUntil: nil)
        } throws: { error in
            if case .invalidValue = error as? StoreError { true } else { false }
        }
    }

    @Test("an ack removes its frame; unknown IDs are ignored")
    func acknowledgement() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let queued = try await Self.queue(3, for: bob, retryUntil: nil, in: database)
        try await database.apply(LedgerChange(removeFromOutbox: [queued[1].messageID, UUID()]))
        #expect(try await database.outbox(peerID: bob).map(\.messageID) == [queued[0], queued[2]].map(\.messageID))
        // New frames still sort after the ones left.
        let more = try await Self.queue(1, for: bob, retryUntil: nil, in: database)
        #expect(try await database.outbox(peerID: bob).last?.messageID == more[0].messageID)
    }

    @Test("markSent counts attempts and records the time")
    func markSent() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let queued = try await Self.queue(2, for: bob, retryUntil: nil, in: database)
        try await database.markSent(messageIDs: queued.map(\.messageID), at: at(100))
        try await database.markSent(messageIDs: [queued[0].messageID, UUID()], at: at(200))
        try await database.markSent(messageIDs: [], at: at(300))
        let stored = try await database.outbox(peerID: bob)
        #expect(stored.map(\.attempts) == [2, 1])
        #expect(stored.map(\.lastSentAt) == [at(200), at(100)])
    }

    @Test("pruning removes only frames whose retryUntil has passed, and returns them")
    func pruning() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let soon = try await Self.queue(2, for: bob, retryUntil: at(900), in: database)
        let forever = try await Self.queue(1, for: bob, retryUntil: nil, in: database)
        let later = try await Self.queue(1, for: bob, retryUntil: at(1800), in: database)

        #expect(try await database.pruneOutbox(now: at(899)).isEmpty)
        let pruned = try await database.pruneOutbox(now: at(900))
        #expect(pruned.map(\.messageID) == soon.map(\.messageID))
        #expect(try await database.outbox(peerID: bob).map(\.messageID) == (forever + later).map(\.messageID))
        #expect(try await database.pruneOutbox(now: at(100_000)).map(\.messageID) == later.map(\.messageID))
        #expect(try await database.outbox(peerID: bob).map(\.messageID) == forever.map(\.messageID))
    }
}
