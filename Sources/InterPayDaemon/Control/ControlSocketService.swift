import InterPayControl
import Logging
import ServiceLifecycle

/// Serves the control socket until graceful shutdown; the socket file is removed when it stops.
struct ControlSocketService: Service {
    let server: ControlServer
    let broadcaster: EventBroadcaster
    let readiness: Readiness
    let logger: Logger

    func run() async throws {
        do {
            try await server.start()
        } catch {
            throw DaemonError.control(error.description)
        }
        logger.info("control socket ready", metadata: ["path": "\(server.path)"])
        readiness.mark(.controlSocket)
        try await cancelWhenGracefulShutdown {
            try await server.run()
        }
        broadcaster.finish()
    }
}

extension ControlSocketService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines (instead of a dump of every property).
    var description: String { "ControlSocketService" }
}
