import InterPayEngine
import Logging
import ServiceLifecycle

/// Tells systemd how the daemon is doing (sd_notify): `READY=1` once `Readiness` is met, `WATCHDOG=1` at half the
/// watchdog interval while the payment engine answers, `STOPPING=1` as soon as graceful shutdown begins. It is the
/// last service of the group, so it is the first to hear of shutdown.
struct NotifyService: Service {
    let notifier: SystemdNotifier
    let readiness: Readiness
    let watchdog: Duration?
    let engine: PaymentEngine
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await readiness.wait()
            guard !Task.isCancelled else { return }
            if notifier.notify("READY=1\nSTATUS=serving peers and the control socket") {
                logger.debug("told systemd: ready")
            }
            // Ping the watchdog (if systemd asked for it) until graceful shutdown cancels this loop.
            while !Task.isCancelled {
                try? await Task.sleep(for: watchdog.map { $0 / 2 } ?? .seconds(3_600))
                guard !Task.isCancelled, watchdog != nil else { continue }
                await engine.ping()
                notifier.notify("WATCHDOG=1")
            }
        }
        notifier.notify("STOPPING=1")
    }
}

extension NotifyService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines.
    var description: String { "NotifyService" }
}
