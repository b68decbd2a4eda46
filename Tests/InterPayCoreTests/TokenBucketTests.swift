import InterPayCore
import Testing

@Suite("Token bucket")
struct TokenBucketTests {
    @Test("a full burst, then one token per 1/rate seconds; a clock going back adds nothing")
    func refill() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(capacity: 3, perSecond: 2, now: start)
        var taken: [Bool] = []
        for offset in [0, 0, 0, 0, 400, 500, -10_000] {
            taken.append(bucket.take(now: start + .milliseconds(offset)))
        }
        #expect(taken == [true, true, true, false, false, true, false])
        bucket.refill(now: start + .seconds(60))
        #expect(bucket.tokens == 3)
    }
}
