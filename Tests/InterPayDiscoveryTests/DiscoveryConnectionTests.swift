import InterPayTestSupport
import Testing

@testable import InterPayDiscovery

/// Whether discovery is connected and what outages bring (`DiscoveryConnection`), the pure decider under
/// `DiscoverySession`: a table of cases, then a bounded exhaustive search of every sequence of eight events driven as
/// the session drives it, checking the rules after each against counts kept here.
@Suite("Discovery connection", .tearsDown)
struct DiscoveryConnectionTests {
    @Test("the first outage warns and reports unavailable once; further attempts count up at debug level")
    func outages() {
        var connection = DiscoveryConnection()
        #expect(connection.failed() == [.tearDown, .retryLater(attempt: 0, warning: true), .reportUnavailable])
        #expect(connection.phase == .waiting && connection.canConnect)
        #expect(connection.failed() == [.tearDown, .retryLater(attempt: 1, warning: false)])
        #expect(connection.connected() == [.watchStability, .reportAvailable(afterOutage: true)])
        #expect(connection.phase == .running && !connection.canConnect)
        // Back, but not for long: the count goes on, no new warning, and the new outage is reported again.
        #expect(connection.failed() == [.tearDown, .retryLater(attempt: 2, warning: false), .reportUnavailable])
    }

    @Test("a connection that lasted starts the count and the warning over; one that did not changes nothing")
    func stability() {
        var connection = DiscoveryConnection()
        #expect(connection.connected() == [.watchStability, .reportAvailable(afterOutage: false)])
        _ = connection.failed()
        #expect(connection.lasted() == [], "the stability check of a connection that is gone")
        #expect(connection.failedAttempts == 1 && connection.hasWarned)
        _ = connection.connected()
        #expect(connection.lasted() == [])
        #expect(connection.failed() == [.tearDown, .retryLater(attempt: 0, warning: true), .reportUnavailable])
    }

    @Test("once stopped, nothing happens any more")
    func stopped() {
        var connection = DiscoveryConnection()
        _ = connection.connected()
        #expect(connection.stop() == [.tearDown])
        #expect(connection.stop() == [])
        #expect(connection.failed() == [])
        #expect(connection.connected() == [])
        #expect(connection.lasted() == [])
        #expect(connection.phase == .stopped && !connection.canConnect)
    }

    enum Event: CaseIterable, CustomStringConvertible {
        case connect, fail, last, stop
        var description: String {
            switch self {
            case .connect: "connect"
            case .fail: "fail"
            case .last: "last"
            case .stop: "stop"
            }
        }
    }

    @Test("every sequence of eight events keeps the rules")
    func exhaustive() {
        var sequences = 0
        var violations: [String] = []
        func explore(_ prefix: [Event]) {
            guard prefix.count < 8 else {
                sequences += 1
                if let problem = Self.check(prefix) { violations.append("\(prefix): \(problem)") }
                return
            }
            for event in Event.allCases { explore(prefix + [event]) }
        }
        explore([])
        #expect(sequences == 65_536)
        #expect(violations.isEmpty, "\(violations.prefix(3))")
    }

    /// Drives `events` as the session does (an attempt only when one may start) and checks each step's actions;
    /// the first rule broken, or nil.
    static func check(_ events: [Event]) -> String? {
        var connection = DiscoveryConnection()
        var stopped = false
        var running = false
        var outagesSinceStable = 0
        var unavailableSinceAvailable = false
        for event in events {
            let actions: [DiscoveryConnection.Action]
            switch event {
            case .connect:
                guard connection.canConnect else {
                    if !stopped && !running { return "cannot connect while neither stopped nor running" }
                    continue
                }
                actions = connection.connected()
                if stopped { return "an attempt started after stop" }
                guard actions == [.watchStability, .reportAvailable(afterOutage: unavailableSinceAvailable)] else {
                    return "connected: \(actions)"
                }
                running = true
                unavailableSinceAvailable = false
            case .fail:
                actions = connection.failed()
                if stopped {
                    guard actions.isEmpty else { return "acted after stop: \(actions)" }
                    continue
                }
                var expected: [DiscoveryConnection.Action] = [
                    .tearDown, .retryLater(attempt: outagesSinceStable, warning: outagesSinceStable == 0),
                ]
                if !unavailableSinceAvailable { expected.append(.reportUnavailable) }
                guard actions == expected else { return "failed: \(actions), expected \(expected)" }
                outagesSinceStable += 1
                unavailableSinceAvailable = true
                running = false
            case .last:
                actions = connection.lasted()
                guard actions.isEmpty else { return "lasted acted: \(actions)" }
                if running { outagesSinceStable = 0 }
            case .stop:
                actions = connection.stop()
                guard actions == (stopped ? [] : [.tearDown]) else { return "stop: \(actions)" }
                stopped = true
                running = false
            }
            let phaseMatches =
                stopped
                ? connection.phase == .stopped
                : running ? connection.phase == .running : connection.phase != .running && connection.canConnect
            guard phaseMatches else { return "phase \(connection.phase) after \(event)" }
            guard connection.failedAttempts == (stopped ? connection.failedAttempts : outagesSinceStable) else {
                return "count \(connection.failedAttempts), expected \(outagesSinceStable)"
            }
        }
        return nil
    }
}
