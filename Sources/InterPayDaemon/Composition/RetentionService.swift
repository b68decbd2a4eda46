import InterPayCore
import InterPayStore
import Logging
import ServiceLifecycle

/// Keeps the ledger from only growing (`[ledger] retention`): a minute after the start and then every hour, removes
/// the payments that are final and not part of the books (rejected, cancelled, expired) last changed more than the
/// retention ago (`AppDatabase.prune`: never within the replay window, never accepted, paid or settled ones, never a
/// series' period) and the peers never paired of which nothing is left, leaves a summary row for each batch, and
/// gives the freed pages back. Graceful shutdown ends it.
struct RetentionService: Service {
    let database: AppDatabase
    let retention: Duration
    let logger: Logger
    /// The first pass after the start, then the interval between passes.
    var firstAfter: Duration = .seconds(60)
    var interval: Duration = .seconds(3_600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var wait = firstAfter
            while !Task.isCancelled {
                // Only cancellation (graceful shutdown) ends the sleep early, and the loop's condition checks it.
                try? await Task.sleep(for: wait)
                guard !Task.isCancelled else { return }
                wait = interval
                await pass(now: .now)
            }
        }
    }

    /// One pass; failures are logged and the next pass tries again.
    func pass(now: Timestamp) async {
        let cutoff = now.adding(seconds: -retention.components.seconds)
        do {
            let summary = try await database.prune(changedBefore: cutoff, now: now)
            guard summary.payments > 0 || summary.peers > 0 else { return }
            logger.info(
                "ledger retention removed old payments that are not part of the books",
                metadata: [
                    "rejected": "\(summary.rejected)", "cancelled": "\(summary.cancelled)",
                    "expired": "\(summary.expired)", "events": "\(summary.events)", "peers": "\(summary.peers)",
                    "freedPages": "\(summary.freedPages)", "changedBefore": "\(cutoff.secondsSince1970)",
                ])
        } catch {
            logger.error("ledger retention failed", metadata: ["error": "\(error)"])
        }
    }
}

extension RetentionService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines.
    var description: String { "RetentionService" }
}
