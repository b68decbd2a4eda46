import Foundation
import InterPayTestSupport
import Testing

@testable import InterPayEngine

@Suite("Waiting for a peer's answer", .tearsDown, .timeLimit(.minutes(1)))
struct AckWaitersTests {
    @Test("a wait with no answer ends as timed out once its timeout has passed, and not before")
    func timesOut() async {
        let waiters = AckWaiters()
        let id = UUID()
        waiters.register(id)
        let start = ContinuousClock.now
        guard case .timedOut = await waiters.wait(for: id, timeout: .milliseconds(200)) else {
            Issue.record("expected a timeout")
            return
        }
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(!waiters.isRegistered(id), "the entry is forgotten")
    }

    @Test("an answer during the wait wakes it long before its timeout; one that came first is returned at once")
    func answered() async {
        let waiters = AckWaiters()
        let (early, late) = (UUID(), UUID())
        waiters.register(early)
        waiters.resolve(early, .dropped)
        guard case .dropped = await waiters.wait(for: early, timeout: .seconds(60)) else {
            Issue.record("expected the outcome that came before the wait")
            return
        }
        waiters.register(late)
        let start = ContinuousClock.now
        async let outcome = waiters.wait(for: late, timeout: .seconds(60))
        try? await Task.sleep(for: .milliseconds(50))  // the wait is then (almost surely) parked; either way it ends
        waiters.resolve(late, .answered(nil))
        guard case .answered(nil) = await outcome else {
            Issue.record("expected the answer")
            return
        }
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(!waiters.isRegistered(late) && !waiters.isRegistered(early))
    }

    @Test("cancelling the waiting task ends the wait as timed out")
    func cancelled() async {
        let waiters = AckWaiters()
        let id = UUID()
        waiters.register(id)
        let task = Task { await waiters.wait(for: id, timeout: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(50))  // parked or not, the cancelled wait ends as timed out
        task.cancel()
        guard case .timedOut = await task.value else {
            Issue.record("expected the cancelled wait to end as timed out")
            return
        }
        #expect(!waiters.isRegistered(id))
    }

    @Test("a timeout becomes a dispatch interval in range, whatever its size")
    func intervals() {
        #expect(AckWaiters.dispatchInterval(.milliseconds(1_500)) == .nanoseconds(1_500_000_000))
        #expect(AckWaiters.dispatchInterval(.zero - .seconds(3)) == .nanoseconds(0))
        #expect(AckWaiters.dispatchInterval(.seconds(Int64.max)) == .nanoseconds(86_400_000_000_000))
    }
}
