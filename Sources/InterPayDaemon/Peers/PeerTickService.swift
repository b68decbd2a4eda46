import Logging
import ServiceLifecycle

/// The daemon's once-a-second work: payments past their expiry, subscription periods due and pairing attempts past
/// their time (the engine), the allocator trimmed after session churn (`MemoryTrim`), and, at most every 10 s, a
/// line saying what the peers' log budgets held back. Graceful shutdown ends it.
struct PeerTickService: Service, UsesDaemonServices {
    let services: DaemonServices
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            var trim = MemoryTrim()
            while !Task.isCancelled {
                await engine.tick()
                trim.afterChurn(connectionsEnded: sessions.inboundConnectionsEnded)
                // What the peers' log budgets held back (a line about no peer: never held back itself).
                if let left = PeerLogBudget.shared.summary() {
                    logger.notice(
                        "\(left.lines) log lines from \(left.peers) peers suppressed",
                        metadata: ["lines": "\(left.lines)", "peers": "\(left.peers)"])
                }
                // Only cancellation ends the sleep early, and the loop's condition checks it.
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}

extension PeerTickService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines.
    var description: String { "PeerTickService" }
}
