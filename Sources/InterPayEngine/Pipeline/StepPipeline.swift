import Dispatch
import InterPayStore
import Synchronization

/// The queue of ledger steps and its one writer: steps of one lane run in the order they were submitted, those
/// submitted while a transaction is in flight share the next one (group commit: one disk flush for the batch), and
/// after each commit `afterCommit` runs before the next transaction begins, so what it sends leaves in commit order.
///
/// Each peer's frames have a lane of their own, and local commands one more: a batch takes a step from each lane in
/// turn, so a peer that floods the engine delays another's frame by at most a batch, not by the whole queue (one lane
/// of ten got nothing for half a minute in a flood when all shared one queue).
///
/// Inbound steps (frames from peers) are bounded: `submitInbound` waits while `inboundCapacity` of them are queued,
/// or `laneCapacity` of its lane's, so a reader that outruns the ledger waits instead of growing the queue (and its
/// socket stops being read), and no peer's reader can fill the queue that the others need. Waiting submitters are
/// served in order, and each one's step is queued for it when room is made, before its task runs again: one that
/// never had to wait cannot take that room first. Local commands are not bounded here: each comes from a control
/// client that waits for its answer.
///
/// The queue is drained on a serial dispatch queue of its own, while there is work: a commit blocks its thread for the
/// disk flush, which must not be an event loop's or the cooperative pool's, and running the transaction on that thread
/// (GRDB runs a synchronous write on its caller's thread when its writer is free) saves the two thread hand-offs per
/// batch of an asynchronous write. There is never more than one drain at a time, whatever the load.
final class StepPipeline<Step: Sendable, Outcome: Sendable, Lane: Hashable & Sendable>: Sendable {
    /// Runs a batch in one transaction, blocking until it is durable: one result per step, in order.
    typealias Commit = @Sendable ([Step]) -> [Outcome]
    /// Runs after each commit, before the next batch, with each step and its result.
    typealias AfterCommit = @Sendable ([(Step, Outcome)]) -> Void

    /// The steps of one lane not yet taken, oldest first (from `head`).
    private struct Queue {
        var steps: [(step: Step, inbound: Bool)] = []
        var head = 0
        /// Inbound steps among them.
        var inbound = 0
        /// Submitters of this lane waiting for room.
        var waiting = 0

        var isEmpty: Bool { head == steps.count }

        /// Moves up to `count` steps to `batch`; returns how many of them were inbound.
        mutating func take(_ count: Int, into batch: inout [Step]) -> Int {
            let end = min(steps.count, head + count)
            var taken = 0
            for index in head..<end {
                batch.append(steps[index].step)
                if steps[index].inbound { taken += 1 }
            }
            head = end
            inbound -= taken
            if head == steps.count {
                steps.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= steps.count {
                // A lane that a steady flood never empties: drop the taken steps (and what their closures hold)
                // once they are half the array, so its memory follows what waits, not what went through.
                steps.removeFirst(head)
                head = 0
            }
            return taken
        }
    }

    private struct State {
        /// The lanes with steps or waiting submitters; `nil` is the local commands' lane.
        var lanes: [Lane?: Queue] = [:]
        /// The lanes with steps, in the order a batch takes from them.
        var ready: [Lane?] = []
        var queued = 0
        var inbound = 0
        var draining = false
        /// Inbound submitters waiting for room, in order, each with its step.
        var roomWaiters: [(step: Step, lane: Lane?, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// The most inbound steps queued at once.
    let inboundCapacity: Int
    /// The most inbound steps of one lane queued at once (not bounded for the `nil` lane).
    let laneCapacity: Int
    /// The most steps in one transaction.
    let maxBatch: Int
    private let state = Mutex(State())
    /// Where batches are committed, one at a time.
    private let queue = DispatchQueue(label: "interpay.ledger-steps", qos: .userInitiated)
    private let commit: Commit
    private let afterCommit: AfterCommit

    /// - Parameters:
    ///   - laneCapacity: by default a sixteenth of `inboundCapacity`, so that sixteen peers flooding at once leave
    ///     room for the next.
    init(
        inboundCapacity: Int = 1_024, laneCapacity: Int? = nil, maxBatch: Int = 512, commit: @escaping Commit,
        afterCommit: @escaping AfterCommit
    ) {
        self.inboundCapacity = max(1, inboundCapacity)
        self.laneCapacity = max(1, laneCapacity ?? inboundCapacity / 16)
        self.maxBatch = max(1, maxBatch)
        self.commit = commit
        self.afterCommit = afterCommit
    }

    /// Queues a local step in the `nil` lane; it runs in the next transaction.
    func submit(_ step: Step) {
        let start = state.withLock { Self.append(step, lane: nil, inbound: false, to: &$0) }
        if start { startDrain() }
    }

    /// Queues an inbound step in `lane` (`nil`: not bounded per lane), first waiting while `inboundCapacity` inbound
    /// steps are queued, or `laneCapacity` of the lane's, or others of its lane wait.
    func submitInbound(_ step: Step, lane: Lane?) async {
        let queued = state.withLock { state -> Bool? in  // nil: no room; else whether to start the drain
            guard hasRoom(for: lane, in: state) else { return nil }
            return Self.append(step, lane: lane, inbound: true, to: &state)
        }
        if let start = queued {
            if start { startDrain() }
            return
        }
        await withCheckedContinuation { continuation in
            let queued = state.withLock { state -> Bool? in  // nil: no room; else whether to start the drain
                guard hasRoom(for: lane, in: state) else {
                    state.roomWaiters.append((step, lane, continuation))
                    state.lanes[lane, default: Queue()].waiting += 1
                    return nil
                }
                return Self.append(step, lane: lane, inbound: true, to: &state)
            }
            if let start = queued {
                if start { startDrain() }
                continuation.resume()
            }
        }
    }

    /// How many steps wait for a transaction now.
    var queuedCount: Int { state.withLock { $0.queued } }

    /// How many lanes have steps waiting now.
    var readyLaneCount: Int { state.withLock { $0.ready.count } }

    /// Whether a new inbound step of `lane` is queued at once. Waiters that remain after room was made (`takeBatch()`)
    /// wait for their lane only while there is room at all, so only those of the same lane keep a newcomer out.
    private func hasRoom(for lane: Lane?, in state: State) -> Bool {
        guard state.inbound < inboundCapacity else { return false }
        guard let queue = state.lanes[lane] else { return true }
        return queue.waiting == 0 && (lane == nil || queue.inbound < laneCapacity)
    }

    /// Appends a step; true when no drain runs, and the caller is to start the one (`startDrain()`).
    private static func append(_ step: Step, lane: Lane?, inbound: Bool, to state: inout State) -> Bool {
        let wasEmpty = state.lanes[lane]?.isEmpty ?? true
        state.lanes[lane, default: Queue()].steps.append((step, inbound))
        if inbound {
            state.lanes[lane, default: Queue()].inbound += 1
            state.inbound += 1
        }
        state.queued += 1
        if wasEmpty { state.ready.append(lane) }
        guard !state.draining else { return false }
        state.draining = true
        return true
    }

    /// The drain is the only one; it ends when the queue is empty (see the type's documentation).
    private func startDrain() {
        queue.async { self.drain() }
    }

    private func drain() {
        while let batch = takeBatch() {
            let outcomes = commit(batch)
            afterCommit(Array(zip(batch, outcomes)))
        }
    }

    /// The next batch, a step from each lane in turn, or nil (and no longer draining) when the queue is empty; queues
    /// the steps of waiting inbound submitters, in order, for the room it makes, and wakes them.
    private func takeBatch() -> [Step]? {
        let (batch, woken) = state.withLock { state -> ([Step]?, [CheckedContinuation<Void, Never>]) in
            guard state.queued > 0 else {
                state.draining = false
                return (nil, [])
            }
            var batch: [Step] = []
            batch.reserveCapacity(min(maxBatch, state.queued))
            while batch.count < maxBatch, !state.ready.isEmpty {
                // Each lane in turn gives its share of the room left (a lane with fewer gives what it has, and the
                // next round shares the rest).
                let share = max(1, (maxBatch - batch.count) / state.ready.count)
                var stillReady: [Lane?] = []
                var served = 0
                for lane in state.ready {
                    guard batch.count < maxBatch else { break }
                    served += 1
                    let count = min(share, maxBatch - batch.count)
                    state.inbound -= state.lanes[lane, default: Queue()].take(count, into: &batch)
                    guard let queue = state.lanes[lane] else { continue }
                    if !queue.isEmpty {
                        stillReady.append(lane)
                    } else if queue.waiting == 0 {
                        state.lanes[lane] = nil
                    }
                }
                // Lanes not served in this round go first next time.
                state.ready = Array(state.ready.dropFirst(served)) + stillReady
            }
            state.queued -= batch.count
            var woken: [CheckedContinuation<Void, Never>] = []
            var stillWaiting: [(step: Step, lane: Lane?, continuation: CheckedContinuation<Void, Never>)] = []
            for waiter in state.roomWaiters {
                let laneFull =
                    waiter.lane != nil && (state.lanes[waiter.lane]?.inbound ?? 0) >= laneCapacity
                guard state.inbound < inboundCapacity, !laneFull else {
                    stillWaiting.append(waiter)
                    continue
                }
                state.lanes[waiter.lane, default: Queue()].waiting -= 1
                // The drain runs (this is it), so none is to be started.
                _ = Self.append(waiter.step, lane: waiter.lane, inbound: true, to: &state)
                woken.append(waiter.continuation)
            }
            state.roomWaiters = stillWaiting
            return (batch, woken)
        }
        for waiter in woken { waiter.resume() }
        return batch
    }
}
