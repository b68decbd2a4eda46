import Dispatch
import Foundation
import InterPayStore
import Synchronization

/// Callers waiting for a peer's answer to one of our frames: registered before the frame's step is submitted (so
/// the answer cannot come first), woken by the step that commits the answer, bounded by a timeout. No polling.
final class AckWaiters: Sendable {
    /// How a wait ended.
    enum Outcome: Sendable {
        /// The peer answered; the payment as the answer left it (nil if it is gone).
        case answered(PaymentRecord?)
        /// The frame left the outbox without an ack (the peer refused it for good).
        case dropped
        /// No answer in time.
        case timedOut
    }

    private enum Entry {
        case registered
        case waiting(@Sendable (Outcome) -> Void)
        case done(Outcome)
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    /// Starts listening for the answer to `messageID`; every registration ends with `wait` or `cancel`.
    func register(_ messageID: UUID) {
        entries.withLock { $0[messageID] = .registered }
    }

    /// Stops listening for `messageID`.
    func cancel(_ messageID: UUID) {
        let waiter = entries.withLock { entries -> (@Sendable (Outcome) -> Void)? in
            guard case .waiting(let answer) = entries.removeValue(forKey: messageID) else { return nil }
            return answer
        }
        waiter?(.timedOut)
    }

    /// Whether anyone listens for `messageID` (cheap: steps ask for every ack).
    func isRegistered(_ messageID: UUID) -> Bool {
        entries.withLock { $0[messageID] != nil }
    }

    /// The answer to `messageID` arrived (or the frame was dropped): wakes its waiter, or keeps the outcome for it.
    func resolve(_ messageID: UUID, _ outcome: Outcome) {
        let waiter = entries.withLock { entries -> (@Sendable (Outcome) -> Void)? in
            switch entries[messageID] {
            case .registered:
                entries[messageID] = .done(outcome)
                return nil
            case .waiting(let answer):
                entries.removeValue(forKey: messageID)
                return answer
            case .done, nil:
                return nil
            }
        }
        waiter?(outcome)
    }

    /// Waits up to `timeout` for the answer to a registered `messageID`, then forgets it.
    func wait(for messageID: UUID, timeout: Duration) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                wait(for: messageID, timeout: timeout) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            cancel(messageID)
        }
    }

    /// Calls `answer` once: with the answer to a registered `messageID` when it comes (at once if it came already),
    /// or with `.timedOut` after `timeout` or on `cancel`; then forgets `messageID`. It may be called on any thread:
    /// the engine arms it on the commit's thread for a step whose caller waits for the answer in the same suspension.
    ///
    /// The deadline is a dispatch timer, not a task: a child task sleeping beside each wait cost two wake-ups of the
    /// cooperative pool per request (to start its sleep, and to end it when the answer came first), where a timer
    /// costs nothing until it fires. It fires once, after `timeout`; when the answer came first the entry is gone by
    /// then and `cancel` does nothing.
    func wait(for messageID: UUID, timeout: Duration, then answer: @escaping @Sendable (Outcome) -> Void) {
        let ready = entries.withLock { entries -> Outcome? in
            switch entries[messageID] {
            case .done(let outcome):
                entries.removeValue(forKey: messageID)
                return outcome
            case .registered:
                entries[messageID] = .waiting(answer)
                return nil
            case .waiting, nil:
                return .timedOut
            }
        }
        if let ready {
            answer(ready)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.dispatchInterval(timeout)) {
            self.cancel(messageID)
        }
    }

    /// `duration` as a dispatch interval: at least zero, at most a day (a wait is seconds long; the bound keeps the
    /// nanoseconds in range whatever a caller passes).
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let bounded = min(max(duration, .zero), .seconds(86_400))
        let (seconds, attoseconds) = bounded.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
