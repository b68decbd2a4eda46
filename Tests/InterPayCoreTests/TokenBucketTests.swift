import InterPayCore
import Testing

@Suite("Token bucket")
struct TokenBucketTests {
    @Test("a full burst, then one token per 1/rate seconds; a clock going back adds nothing")
    func refill() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(capacity: 3, perSecond: 2, now: start)
        #expect((0..<3).allSatisfy { _ in bucket.take(now: start) })
        #expect(!bucket.take(now: start))
        #expect(!bucket.take(now: start + .milliseconds(400)))
        #expect(bucket.take(now: start + .milliseconds(500)))
        #expect(!bucket.take(now: start - .seconds(10)))
        bucket.refill(now: start + .seconds(60))
        #expect(bucket.tokens == 3)
    }
}
