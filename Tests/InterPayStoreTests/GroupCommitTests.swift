import Foundation
import InterPayCore
import InterPayTestSupport
import Synchronization
import Testing

@testable import InterPayStore

@Suite("Group commit")
struct GroupCommitTests {
    @Test("changes that arrive during a write share the next write; each gets its own outcome, in order")
    func batching() async throws {
        let batches = Mutex<[[Int]]>([])
        let gate = Gate()
        let committer = GroupCommit<Int, Int> { changes in
            batches.withLock { $0.append(changes) }
            if changes == [0] { await gate.wait() }  // hold the first write until the others have queued
            return changes.map { $0 * 10 }
        }
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            group.addTask { (0, await committer.commit(0)) }
            await eventually("the first write runs") { batches.withLock { $0.count == 1 } }
            for value in 1...5 { group.addTask { (value, await committer.commit(value)) } }
            await eventually("the others are queued") { committer.queuedCount == 5 }
            await gate.open()
            for try await (value, outcome) in group { #expect(outcome == value * 10) }
        }
        let written = batches.withLock { $0 }
        #expect(written.first == [0])
        #expect(written.count == 2, "the five queued changes share one write: \(written)")
        #expect(Set(written.dropFirst().flatMap { $0 }) == Set(1...5))
    }

    @Test("in the ledger, a change that breaks a constraint fails alone; the others of its batch commit")
    func failsAlone() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let seen = SeenMessageRecord(
            messageID: UUID(), peerID: bob, paymentID: nil, receivedAt: at(), response: Data(#"{"type":"ack"}"#.utf8))
        try await database.apply(LedgerChange(seenMessage: seen))
        let requests = try (0..<20).map { _ in try makeRequest(payee: try Peers.us(), payer: bob) }
        let changes = try requests.map { try outgoingRequestChange($0, now: at()) }
        var duplicate = LedgerChange()
        duplicate.seenMessage = seen
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for change in changes + [duplicate] {
                group.addTask { (try? await database.apply(change)) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 20 && outcomes.filter { !$0 }.count == 1)
        for request in requests { #expect(try await database.payment(id: request.id) != nil) }
        #expect(try await database.outbox(peerID: bob).count == 20)
    }
}

/// Suspends callers until it is opened.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}
