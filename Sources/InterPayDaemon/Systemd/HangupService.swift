import Logging
import ServiceLifecycle
import UnixSignals

/// Answers SIGHUP. The configuration is not reloaded (README): a hang-up is logged and the daemon carries on, instead
/// of dying of the signal's default action. Graceful shutdown ends the wait.
struct HangupService: Service {
    let logger: Logger

    func run() async throws {
        // Trapping replaces the default action (terminate) for the rest of the process's life.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                logger.notice("SIGHUP ignored: the configuration is not reloaded; restart interpayd to apply changes")
            }
        }
    }
}

extension HangupService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines.
    var description: String { "HangupService" }
}
