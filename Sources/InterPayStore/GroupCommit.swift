import Synchronization

/// Commits ledger changes that arrive together in one transaction: one disk flush for many steps.
///
/// The first caller leads: it writes its own change plus every change queued meanwhile, then hands the lead to the
/// first change that queued during its write. A change that arrives while a write is running waits for the next
/// one, so under load each flush carries everything that arrived during the previous flush; alone, a change is
/// written at once. Each change keeps its own outcome (the batch applies each in a savepoint), so one change that
/// breaks a constraint fails alone.
final class GroupCommit<Change: Sendable, Outcome: Sendable>: Sendable {
    /// Writes a batch in one transaction, returning one outcome per change, in order.
    typealias Writer = @Sendable ([Change]) async -> [Outcome]

    private enum Turn: Sendable {
        case done(Outcome)
        case lead
    }

    private struct Waiting: Sendable {
        var change: Change
        var continuation: CheckedContinuation<Turn, Never>
    }

    /// Whether a write is running, and what waits for the next one.
    private let state = Mutex<(leading: Bool, queue: [Waiting])>((false, []))
    private let write: Writer

    init(write: @escaping Writer) {
        self.write = write
    }

    /// Changes waiting for the next write.
    var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Commits `change`, alone or with others; returns its outcome.
    func commit(_ change: Change) async -> Outcome {
        let leadsNow = state.withLock { state in
            if state.leading { return false }
            state.leading = true
            return true
        }
        if !leadsNow {
            let turn = await withCheckedContinuation { continuation in
                let queued = state.withLock { state in
                    guard state.leading else {
                        state.leading = true
                        return false
                    }
                    state.queue.append(Waiting(change: change, continuation: continuation))
                    return true
                }
                if !queued { continuation.resume(returning: .lead) }
            }
            if case .done(let outcome) = turn { return outcome }
        }
        // Leading: this change and everything queued so far, in one write.
        let others = state.withLock { state in
            defer { state.queue.removeAll() }
            return state.queue
        }
        let outcomes = await write([change] + others.map(\.change))
        for (waiting, outcome) in zip(others, outcomes.dropFirst()) {
            waiting.continuation.resume(returning: .done(outcome))
        }
        let next = state.withLock { state -> Waiting? in
            guard !state.queue.isEmpty else {
                state.leading = false
                return nil
            }
            return state.queue.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return outcomes[0]
    }
}
