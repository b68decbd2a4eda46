import InterPayTestSupport
import Testing

@testable import InterPayTransport

/// The bound on connections that have not finished TLS and `hello`, and the throttle of the log lines about them.
@Suite("Unauthenticated connection limit and log throttle", .tearsDown)
struct ConnectionLimitTests {
    @Test("at most `limit` places; a place comes back once, however often it is released")
    func limit() throws {
        let connections = UnauthenticatedConnections(limit: 2)
        let first = try #require(connections.admit())
        let second = try #require(connections.admit())
        #expect(connections.admit() == nil)
        #expect(connections.count == 2)
        first.release()
        first.release()
        #expect(connections.count == 1)
        let third = try #require(connections.admit())
        #expect(connections.admit() == nil)
        second.release()
        third.release()
        #expect(connections.count == 0)
    }

    @Test("the first occurrence is logged, the rest of the interval only counted and reported with the next one")
    func throttle() {
        var throttle = LogThrottle(interval: .seconds(10))
        let start = ContinuousClock.now
        #expect(throttle.record(at: start) == 0)
        for second in 1...5 {
            #expect(throttle.record(at: start.advanced(by: .seconds(second))) == nil)
        }
        #expect(throttle.record(at: start.advanced(by: .seconds(10))) == 5)
        #expect(throttle.record(at: start.advanced(by: .seconds(11))) == nil)
        #expect(throttle.record(at: start.advanced(by: .seconds(25))) == 1)
    }

    @Test("each kind of event has its own throttle")
    func kinds() {
        let connections = UnauthenticatedConnections(limit: 1)
        let now = ContinuousClock.now
        #expect(connections.shouldLog(.refused, at: now) == 0)
        #expect(connections.shouldLog(.refused, at: now) == nil)
        #expect(connections.shouldLog(.timedOut, at: now) == 0)
        #expect(connections.shouldLog(.oversize, at: now) == 0)
    }
}
