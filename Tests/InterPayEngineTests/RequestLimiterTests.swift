import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

/// Per-peer admission of incoming requests: pending at once, and a token bucket per minute.
@Suite("Request limiter", .tearsDown)
struct RequestLimiterTests {
    let alice = PeerID(subjectPublicKeyInfoDER: Array("alice".utf8))
    let bob = PeerID(subjectPublicKeyInfoDER: Array("bob".utf8))
    let start = Timestamp(secondsSince1970: 1_795_000_000)

    func at(_ seconds: Int64) -> Timestamp { start.adding(seconds: seconds) }

    @Test("a request is refused while the peer has the maximum pending, and admitted again when one is decided")
    func pending() {
        var limiter = RequestLimiter(limits: .init(maxPending: 3, maxPerMinute: 600))
        #expect(limiter.admit(from: alice, pending: 2, now: start) == nil)
        let verdict = limiter.admit(from: alice, pending: 3, now: start)
        #expect(verdict?.refusal == .tooManyPending(limit: 3))
        #expect(limiter.admit(from: bob, pending: 0, now: start) == nil, "another peer has its own count")
        #expect(limiter.admit(from: alice, pending: 2, now: start) == nil)
    }

    @Test("a minute's worth is admitted at once, then one per 60/limit seconds; refusals use no budget")
    func rate() {
        var limiter = RequestLimiter(limits: .init(maxPending: 100, maxPerMinute: 6))
        for _ in 0..<6 { #expect(limiter.admit(from: alice, pending: 0, now: start) == nil) }
        #expect(limiter.admit(from: alice, pending: 0, now: start)?.refusal == .tooManyRequests(limit: 6))
        #expect(limiter.admit(from: alice, pending: 0, now: at(5))?.refusal == .tooManyRequests(limit: 6))
        #expect(limiter.budget(of: alice, now: at(10)) == 1, "6 per minute: one more after 10 seconds")
        #expect(limiter.admit(from: alice, pending: 0, now: at(10)) == nil)
        #expect(limiter.admit(from: alice, pending: 0, now: at(10)) != nil)
        #expect(limiter.admit(from: bob, pending: 0, now: at(10)) == nil, "another peer has its own budget")
        #expect(limiter.budget(of: alice, now: at(3_600)) == 6, "the budget refills to one minute's worth, no more")
    }

    @Test("a clock set back gives no budget")
    func clockBack() {
        var limiter = RequestLimiter(limits: .init(maxPending: 100, maxPerMinute: 2))
        #expect(limiter.admit(from: alice, pending: 0, now: at(100)) == nil)
        #expect(limiter.admit(from: alice, pending: 0, now: at(100)) == nil)
        #expect(limiter.admit(from: alice, pending: 0, now: at(0)) != nil)
        #expect(limiter.budget(of: alice, now: at(0)) == 0)
    }

    @Test("the first refusal of a peer in a minute is logged, later ones are counted and reported with the next")
    func logging() {
        var limiter = RequestLimiter(limits: .init(maxPending: 1, maxPerMinute: 600))
        #expect(limiter.admit(from: alice, pending: 1, now: start)?.log == 0)
        #expect(limiter.admit(from: alice, pending: 1, now: at(1))?.log == nil)
        #expect(limiter.admit(from: alice, pending: 1, now: at(59))?.log == nil)
        #expect(limiter.admit(from: bob, pending: 1, now: at(59))?.log == 0, "each peer is logged on its own")
        #expect(limiter.admit(from: alice, pending: 1, now: at(60))?.log == 2)
    }

    @Test("each limit's refusals are logged on their own")
    func loggingPerLimit() {
        var limiter = RequestLimiter(limits: .init(maxPending: 1, maxPerMinute: 1))
        #expect(limiter.admit(from: alice, pending: 0, now: start) == nil)
        #expect(limiter.admit(from: alice, pending: 1, now: start)?.log == 0)
        let rate = limiter.admit(from: alice, pending: 0, now: start)
        #expect(rate?.refusal == .tooManyRequests(limit: 1) && rate?.log == 0)
        #expect(limiter.admit(from: alice, pending: 0, now: start)?.log == nil)
    }

    @Test("beyond the tracked maximum, peers whose budget is full again are forgotten")
    func bounded() {
        var limiter = RequestLimiter(limits: .init(maxPending: 100, maxPerMinute: 60))
        for index in 0..<(RequestLimiter.trackedPeers + 10) {
            let peer = PeerID(subjectPublicKeyInfoDER: Array("peer \(index)".utf8))
            #expect(limiter.admit(from: peer, pending: 0, now: at(Int64(index) * 2)) == nil)
        }
        #expect(limiter.trackedCount <= RequestLimiter.trackedPeers)
    }

    @Test("fresh keys that are refused again and again are forgotten too: the map stays bounded")
    func boundedUnderRefusals() {
        // Every key is refused twice (pending limit reached), so each has a refusal left to report: before, such a
        // key was kept for good and 2,000 keys stayed 2,000 entries.
        var limiter = RequestLimiter(limits: .init(maxPending: 1, maxPerMinute: 60))
        var last: PeerID?
        for index in 0..<2_000 {
            let peer = PeerID(subjectPublicKeyInfoDER: Array("refused \(index)".utf8))
            #expect(limiter.admit(from: peer, pending: 1, now: at(Int64(index / 100)))?.log == 0)
            #expect(limiter.admit(from: peer, pending: 1, now: at(Int64(index / 100)))?.log == nil)
            last = peer
        }
        #expect(limiter.trackedCount <= RequestLimiter.trackedPeers)
        #expect(limiter.trackedCount > RequestLimiter.trackedPeers / 4, "recent peers are still tracked")
        if let last {
            #expect(limiter.admit(from: last, pending: 1, now: at(20))?.log == nil, "the newest peer is remembered")
        }
    }

    @Test("fresh keys share one budget: 20 unpaired peers get twice one peer's rate, not twenty times")
    func unpairedShareABudget() {
        var limiter = RequestLimiter(limits: .init(maxPending: 100, maxPerMinute: 10))
        #expect(limiter.limits.maxPerMinuteUnpaired == 20 && limiter.limits.maxPendingUnpaired == 1_000)
        var admitted = 0
        for index in 0..<20 {
            let peer = PeerID(subjectPublicKeyInfoDER: Array("fresh \(index)".utf8))
            for _ in 0..<10 where limiter.admit(from: peer, pending: 0, unpairedPending: 0, now: start) == nil {
                admitted += 1
            }
        }
        #expect(admitted == 20)
        // A paired peer does not draw on the shared budget.
        #expect(limiter.admit(from: alice, pending: 0, unpairedPending: nil, now: start) == nil)
        // After a minute the shared budget is full again.
        let later = PeerID(subjectPublicKeyInfoDER: Array("later".utf8))
        #expect(limiter.admit(from: later, pending: 0, unpairedPending: 0, now: at(60)) == nil)
    }

    @Test("pending requests of all unpaired peers together are bounded")
    func unpairedPending() {
        var limiter = RequestLimiter(limits: .init(maxPending: 5, maxPerMinute: 600))
        let verdict = limiter.admit(from: bob, pending: 0, unpairedPending: 50, now: start)
        #expect(verdict?.refusal == .tooManyPendingUnpaired(limit: 50))
        #expect(limiter.admit(from: bob, pending: 0, unpairedPending: 49, now: start) == nil)
        #expect(limiter.admit(from: alice, pending: 0, unpairedPending: nil, now: start) == nil)
    }

    @Test("unpaired peers together get at most a day's budget, however fast their requests expire (T-GROWTH)")
    func unpairedDailyBudget() {
        // 5 pending per peer: 50 unpaired pending together, and 50 a day. 600 a minute per peer, 1,200 together.
        var limiter = RequestLimiter(limits: .init(maxPending: 5, maxPerMinute: 600))
        #expect(limiter.limits.maxPerDayUnpaired == 50)
        var admitted = 0
        // Ten minutes of fresh keys whose requests expire at once (nothing stays pending): before, 1,200 a minute.
        for second in 0..<600 {
            let peer = PeerID(subjectPublicKeyInfoDER: Array("fresh \(second % 20)".utf8))
            if limiter.admit(from: peer, pending: 0, unpairedPending: 0, now: at(Int64(second))) == nil {
                admitted += 1
            }
        }
        // 50, and what 10 minutes refill at 50 a day (0.35): the day's budget is spent.
        #expect(admitted == 50, "\(admitted)")
        let refused = limiter.admit(from: bob, pending: 0, unpairedPending: 0, now: at(600))
        #expect(refused?.refusal == .tooManyRequestsUnpairedToday(limit: 50))
        // A paired peer does not draw on it.
        #expect(limiter.admit(from: alice, pending: 0, unpairedPending: nil, now: at(600)) == nil)
        // A day later the budget is whole again.
        #expect(limiter.admit(from: bob, pending: 0, unpairedPending: 0, now: at(600 + 86_400)) == nil)
    }

    @Test("limits configured as unlimited stay unlimited together")
    func saturating() {
        let limits = RequestLimiter.Limits(maxPending: .max, maxPerMinute: .max)
        #expect(limits.maxPendingUnpaired == .max && limits.maxPerMinuteUnpaired == .max)
    }

    @Test("a peer's requests that expire unanswered have a day's budget, paired or not (R-RETENTION)")
    func expiredBudget() {
        // maxPending 3: ten times that, 30, may expire unanswered a day.
        var limiter = RequestLimiter(limits: .init(maxPending: 3, maxPerMinute: 1_000))
        #expect(limiter.limits.maxExpiredPerDay == 30)
        for _ in 0..<29 { limiter.expiredUnanswered(from: alice, now: start) }
        #expect(limiter.admit(from: alice, pending: 0, now: start) == nil, "29 expired: still admitted")
        limiter.expiredUnanswered(from: alice, now: start)
        #expect(limiter.admit(from: alice, pending: 0, now: start)?.refusal == .tooManyExpiredToday(limit: 30))
        #expect(limiter.admit(from: bob, pending: 0, now: start) == nil, "another peer has its own budget")
        // 30 a day: one more after 2,880 s.
        #expect(limiter.admit(from: alice, pending: 0, now: at(2_000)) != nil)
        #expect(limiter.admit(from: alice, pending: 0, now: at(2_900)) == nil)
        // Requests past expiry that the expiry check has not reached yet count as expired already: with 28 expired and
        // 2 due, the day's 30 are spent.
        var other = RequestLimiter(limits: .init(maxPending: 3, maxPerMinute: 1_000))
        for _ in 0..<28 { other.expiredUnanswered(from: alice, now: start) }
        #expect(other.admit(from: alice, pending: 0, dueUnanswered: 1, now: start) == nil, "28 + 1: admitted")
        #expect(
            other.admit(from: alice, pending: 0, dueUnanswered: 2, now: start)?.refusal
                == .tooManyExpiredToday(limit: 30))
    }
}
