package import Foundation
package import InterPayCore
package import InterPayStore
package import InterPayTransport
import Logging
import Synchronization

/// A daemon's payment side without its control socket or discovery: a session manager on loopback feeding a real
/// `PaymentEngine` and ledger, wired as `PeerService` wires them. For benchmarks (`interpay-bench`) that measure
/// the engine in-process.
package final class PaymentNode: Sendable {
    /// The node's sessions.
    package let sessions: SessionManager
    /// The node's ledger.
    package let database: AppDatabase
    /// The port its listener got.
    package let port: Int
    let engine: PaymentEngine
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let deliveries = Deliveries()

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
            database: database, sessions: sessions,
            requestLimits: .init(maxPending: .max, maxPerMinute: .max), logger: logger)
        let (sessions, engine) = (self.sessions, self.engine)
        let run = Task { _ = try? await sessions.run() }
        let follow = Task { await SessionEventRouter(engine: engine, pairing: nil).run(sessions.events) }
        let deliveries = self.deliveries
        let watch = Task {
            for await event in engine.events {
                if case .delivered(let paymentID, _) = event { deliveries.arrived(paymentID) }
            }
        }
        tasks.withLock { $0 = [run, follow, watch] }
    }

    /// This node's peer ID.
    package var id: PeerID { sessions.identity.peerID }

    /// Dials `other` and waits until both sides hold the session.
    package func connect(to other: PaymentNode) async {
        await sessions.maintainConnection(key: "peer", host: "127.0.0.1", port: other.port, expectedPeerID: other.id)
        while !Task.isCancelled {
            let mine = await sessions.currentSessions().contains { $0.peerID == other.id }
            let theirs = await other.sessions.currentSessions().contains { $0.peerID == self.id }
            if mine && theirs { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Asks `payer` for `amount`: returns once the request is committed and handed to the session.
    package func request(from payer: PeerID, amount: Money, memo: String) async throws -> UUID {
        try await engine.request(from: payer, amount: amount, memo: memo, category: nil, expiresIn: 3_600).id
    }

    /// Waits until the peer's ack of the request `paymentID` is committed here.
    package func delivered(_ paymentID: UUID) async {
        await deliveries.wait(for: paymentID)
    }

    /// Stops the node's tasks (the ledger stays on disk).
    package func stop() async {
        let running = tasks.withLock { $0 }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}

/// Deliveries seen and who waits for which; a delivery may come before or after its waiter.
private final class Deliveries: Sendable {
    private let state = Mutex<(done: Set<UUID>, waiting: [UUID: CheckedContinuation<Void, Never>])>(([], [:]))

    func arrived(_ paymentID: UUID) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiting.removeValue(forKey: paymentID) { return waiter }
            state.done.insert(paymentID)
            return nil
        }
        waiter?.resume()
    }

    func wait(for paymentID: UUID) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.done.remove(paymentID) != nil { return true }
                state.waiting[paymentID] = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
