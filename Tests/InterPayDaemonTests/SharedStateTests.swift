import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// The listener's port as the daemon's services share it: discovery advertises what the sessions' listener bound.
@Suite("Shared state", .tearsDown)
struct SharedStateTests {
    @Test("listenerPort waits for the port the listener binds; a port set before is answered at once")
    func listenerPortWaits() async {
        let shared = SharedState()
        let waiting = Task { await shared.listenerPort() }
        // Before, discovery bound a listener of its own when it asked first, and advertised a port nobody served.
        try? await Task.sleep(for: .milliseconds(50))
        shared.port = 7420
        #expect(await waiting.value == 7420)
        #expect(await shared.listenerPort() == 7420)
    }

    @Test("a waiter cancelled before the listener binds gets nil")
    func listenerPortCancelled() async {
        let shared = SharedState()
        let waiting = Task { await shared.listenerPort() }
        try? await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value == nil)
        shared.port = 7420
    }
}
