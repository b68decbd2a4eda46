package import Foundation
package import InterPayCore
package import InterPayEngine
package import InterPayStore
package import InterPayTransport
import Logging
import Synchronization

/// A daemon's payment side without its control socket or discovery: a session manager on loopback feeding a real
/// `PaymentEngine` and ledger, wired as `PeerService` wires them. For benchmarks (`interpay-bench`) that measure
/// the engine in-process over TLS.
package final class PaymentNode: Sendable {
    /// The node's sessions.
    package let sessions: SessionManager
    /// The node's ledger.
    package let database: AppDatabase
    /// The port its listener got.
    package let port: Int
    /// The node's engine.
    package let engine: PaymentEngine
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Opens (or creates) the identity and ledger in `directory` and starts listening on 127.0.0.1.
    package init(name: String, directory: URL) async throws {
        var logger = Logger(label: "bench.\(name)")
        logger.logLevel = .critical
        var configuration = TransportConfiguration(displayName: name, host: "127.0.0.1")
        configuration.reconnectBackoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(500))
        sessions = try SessionManager(
            identity: try Identity.loadOrCreate(in: directory), configuration: configuration, logger: logger)
        port = try await sessions.start()
        database = try AppDatabase(path: directory.appending(path: "ledger.sqlite").path)
        // No per-peer request limits: the benchmark floods one peer on purpose.
        engine = PaymentEngine(
            me: sessions.identity.peerID, database: database, link: TransportLink(sessions: sessions),
            requestLimits: .init(maxPending: .max, maxPerMinute: .max), logger: logger)
        let (sessions, engine) = (self.sessions, self.engine)
        let router = SessionEventRouter(engine: engine, pairing: nil)
        router.takePaymentFrames(from: sessions)
        let run = Task {
            // The listener's failure ends the benchmark's sessions, which the benchmark then reports as missing.
            _ = try? await sessions.run()
        }
        let follow = Task { await router.run(sessions.events) }
        tasks.withLock { $0 = [run, follow] }
    }

    /// This node's peer ID.
    package var id: PeerID { sessions.identity.peerID }

    /// Dials `other` and waits until both sides hold the session.
    package func connect(to other: PaymentNode) async {
        await sessions.maintainConnection(key: "peer", host: "127.0.0.1", port: other.port, expectedPeerID: other.id)
        while !Task.isCancelled {
            if sessions.session(with: other.id) != nil, other.sessions.session(with: id) != nil { return }
            try? await Task.sleep(for: .milliseconds(10))  // Cancellation ends the loop above.
        }
    }

    /// Asks `payer` for `amount` and returns once the payer's ack is committed here (or after 30 s).
    package func requestAcknowledged(from payer: PeerID, amount: Money, memo: String) async throws -> PaymentRecord {
        try await engine.request(
            from: payer, amount: amount, memo: memo, category: nil, expiresIn: 3_600, wait: .seconds(30))
    }

    /// Stops the node's tasks (the ledger stays on disk).
    package func stop() async {
        let running = tasks.withLock { $0 }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}
