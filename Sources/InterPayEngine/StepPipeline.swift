import Dispatch
import InterPayStore
import Synchronization

/// The queue of ledger steps and its one writer: steps run in the order they were submitted, those submitted while a
/// transaction is in flight share the next one (group commit: one disk flush for the batch), and after each commit
/// `afterCommit` runs before the next transaction begins, so what it sends leaves in commit order.
///
/// Inbound steps (frames from peers) are bounded: `submitInbound` waits while `inboundCapacity` of them are queued,
/// so a reader that outruns the ledger waits instead of growing the queue (and its socket stops being read). Local
/// commands are not bounded here: each comes from a control client that waits for its answer.
///
/// The queue is drained on a serial dispatch queue of its own, while there is work: a commit blocks its thread for the
/// disk flush, which must not be an event loop's or the cooperative pool's, and running the transaction on that thread
/// (GRDB runs a synchronous write on its caller's thread when its writer is free) saves the two thread hand-offs per
/// batch of an asynchronous write. There is never more than one drain at a time, whatever the load.
final class StepPipeline<Step: Sendable, Outcome: Sendable>: Sendable {
    /// Runs a batch in one transaction, blocking until it is durable: one result per step, in order.
    typealias Commit = @Sendable ([Step]) -> [Outcome]
    /// Runs after each commit, before the next batch, with each step and its result.
    typealias AfterCommit = @Sendable ([(Step, Outcome)]) -> Void

    private struct State {
        var queue: [Step] = []
        var inboundQueued: [Bool] = []
        var inbound = 0
        var draining = false
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The most inbound steps queued at once.
    let inboundCapacity: Int
    /// The most steps in one transaction.
    let maxBatch: Int
    private let state = Mutex(State())
    /// Where batches are committed, one at a time.
    private let queue = DispatchQueue(label: "interpay.ledger-steps", qos: .userInitiated)
    private let commit: Commit
    private let afterCommit: AfterCommit

    init(
        inboundCapacity: Int = 1_024, maxBatch: Int = 512, commit: @escaping Commit, afterCommit: @escaping AfterCommit
    ) {
        self.inboundCapacity = max(1, inboundCapacity)
        self.maxBatch = max(1, maxBatch)
        self.commit = commit
        self.afterCommit = afterCommit
    }

    /// Queues a local step; it runs in the next transaction.
    func submit(_ step: Step) {
        enqueue(step, inbound: false)
    }

    /// Queues an inbound step, first waiting while `inboundCapacity` inbound steps are queued.
    func submitInbound(_ step: Step) async {
        while true {
            let full = state.withLock { $0.inbound >= inboundCapacity }
            guard full else { break }
            await withCheckedContinuation { continuation in
                let wait = state.withLock { state -> Bool in
                    guard state.inbound >= inboundCapacity else { return false }
                    state.roomWaiters.append(continuation)
                    return true
                }
                if !wait { continuation.resume() }
            }
        }
        enqueue(step, inbound: true)
    }

    /// How many steps wait for a transaction now.
    var queuedCount: Int { state.withLock { $0.queue.count } }

    private func enqueue(_ step: Step, inbound: Bool) {
        let start = state.withLock { state -> Bool in
            state.queue.append(step)
            state.inboundQueued.append(inbound)
            if inbound { state.inbound += 1 }
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        // The drain is the only one; it ends when the queue is empty (see the type's documentation).
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while let batch = takeBatch() {
            let outcomes = commit(batch)
            afterCommit(Array(zip(batch, outcomes)))
        }
    }

    /// The next batch, or nil (and no longer draining) when the queue is empty; wakes inbound submitters for the
    /// room it makes.
    private func takeBatch() -> [Step]? {
        let (batch, waiters) = state.withLock { state -> ([Step]?, [CheckedContinuation<Void, Never>]) in
            guard !state.queue.isEmpty else {
                state.draining = false
                return (nil, [])
            }
            let count = min(maxBatch, state.queue.count)
            let batch = Array(state.queue.prefix(count))
            let inbound = state.inboundQueued.prefix(count).filter { $0 }.count
            state.queue.removeFirst(count)
            state.inboundQueued.removeFirst(count)
            state.inbound -= inbound
            let room = max(0, inboundCapacity - state.inbound)
            let woken = Array(state.roomWaiters.prefix(room))
            state.roomWaiters.removeFirst(woken.count)
            return (batch, woken)
        }
        for waiter in waiters { waiter.resume() }
        return batch
    }
}
