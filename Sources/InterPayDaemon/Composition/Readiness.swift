import Synchronization

/// Collects the conditions for telling systemd the daemon is ready: the control socket answers, the peer listener
/// is bound, and discovery has registered the service (or is off, or avahi-daemon is unreachable and retrying).
final class Readiness: Sendable {
    /// One condition.
    enum Condition: Sendable, Hashable {
        case controlSocket
        case peerListener
        case discovery
    }

    private let state = Mutex<State>(State())
    private static let all: Set<Condition> = [.controlSocket, .peerListener, .discovery]

    private struct State {
        var met: Set<Condition> = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        var cancelled = false
    }

    /// Marks a condition as met; resumes the waiters once all are.
    func mark(_ condition: Condition) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.met.insert(condition)
            guard state.met == Self.all else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once every condition is met, or when the task is cancelled (check `Task.isCancelled`).
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.met == Self.all || state.cancelled { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.cancelled = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
