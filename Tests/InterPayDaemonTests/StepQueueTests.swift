import Foundation
import Testing

@testable import InterPayDaemon

@Suite("Step queue")
struct StepQueueTests {
    let a = UUID()
    let b = UUID()

    @Test("steps on different payments run at once; a second step on one payment waits for the first")
    func perPayment() {
        var queue = StepQueue()
        let first = queue.enqueue(.payment(a))
        #expect(first.admitted == [first.ticket])
        let other = queue.enqueue(.payment(b))
        #expect(other.admitted == [other.ticket], "another payment runs at once")
        let second = queue.enqueue(.payment(a))
        #expect(second.admitted.isEmpty, "the same payment waits")
        #expect(queue.finish(other.ticket).isEmpty)
        #expect(queue.finish(first.ticket) == [second.ticket])
        #expect(queue.finish(second.ticket).isEmpty)
        #expect(queue.runningCount == 0 && queue.waitingCount == 0)
    }

    @Test("steps on one payment start in the order they were enqueued")
    func fifoPerPayment() {
        var queue = StepQueue()
        let tickets = (0..<4).map { _ in queue.enqueue(.payment(a)) }
        #expect(tickets[0].admitted == [tickets[0].ticket])
        #expect(tickets.dropFirst().allSatisfy { $0.admitted.isEmpty })
        for index in 0..<3 {
            #expect(queue.finish(tickets[index].ticket) == [tickets[index + 1].ticket])
        }
    }

    @Test("a step on everything waits for the running steps, runs alone, and holds back later steps")
    func everything() {
        var queue = StepQueue()
        let one = queue.enqueue(.payment(a))
        let all = queue.enqueue(.everything)
        #expect(all.admitted.isEmpty, "waits for the running step")
        let later = queue.enqueue(.payment(b))
        #expect(later.admitted.isEmpty, "a later step on another payment waits behind it")
        #expect(queue.finish(one.ticket) == [all.ticket])
        let whileAll = queue.enqueue(.payment(b))
        #expect(whileAll.admitted.isEmpty)
        #expect(queue.finish(all.ticket) == [later.ticket], "then the later steps, in order")
        #expect(queue.finish(later.ticket) == [whileAll.ticket])
    }

    @Test("a blocked step does not hold back a step on another payment that was enqueued after it")
    func noHeadOfLineBlocking() {
        var queue = StepQueue()
        let first = queue.enqueue(.payment(a))
        let blocked = queue.enqueue(.payment(a))
        let other = queue.enqueue(.payment(b))
        #expect(blocked.admitted.isEmpty)
        #expect(other.admitted == [other.ticket])
        #expect(queue.finish(first.ticket) == [blocked.ticket])
    }

    @Test("finishing an unknown ticket changes nothing")
    func unknownTicket() {
        var queue = StepQueue()
        let one = queue.enqueue(.payment(a))
        #expect(queue.finish(one.ticket + 100).isEmpty)
        #expect(queue.runningCount == 1)
    }
}
