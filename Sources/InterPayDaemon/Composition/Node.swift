import Foundation
package import InterPayCore
import InterPayDiscovery
package import InterPayEngine
package import InterPayStore
package import InterPayTransport
package import Logging
import Synchronization

/// A daemon's peer side, built one way for `interpayd`, `interpay-bench` and the tests: the sessions (listener and
/// dialer) under an identity, the ledger, the payment engine, pairing, and the router that hands the sessions' frames
/// and events to them, payment frames going from each session's reader straight to the engine.
///
/// The daemon runs it in `PeerSessionsService`, beside discovery and the timers; the benchmarks and the tests run it on
/// its own with `runInBackground()`.
package final class Node: Sendable {
    /// What a node is made of, beside its identity.
    package struct Options: Sendable {
        /// The name it announces.
        package var name: String
        /// Its sessions' settings (`displayName` is set from `name`).
        package var transport: TransportConfiguration
        /// Converts an accepted amount into the preferred currency, to store beside the acceptance.
        package var acceptanceQuote: PaymentEngine.AcceptanceQuote?
        /// Whose requests are taken.
        package var acceptFrom: AcceptPolicy = .any
        /// The per-peer request limits.
        package var requestLimits: RequestLimiter.Limits = .init()
        /// Whether it signs receipts for payments it is paid.
        package var issuesReceipts = true
        /// Whether subscription periods shorter than a day are accepted (tests).
        package var acceptTestPeriods = false
        /// Whether the node's directory is a temporary one that `stop()` removes (tests).
        package var temporary = false

        /// Options for a node named `name` with `transport`'s session settings.
        package init(name: String, transport: TransportConfiguration) {
            self.name = name
            self.transport = transport
        }
    }

    /// The node's identity.
    package let identity: Identity
    /// Its sessions.
    package let sessions: SessionManager
    /// Its ledger.
    package let database: AppDatabase
    /// Its payment engine.
    package let engine: PaymentEngine
    /// The ledger file, when the node opened it (`init(directory:options:logger:)`).
    package let ledgerPath: String?
    private let temporaryDirectory: String?
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let boundPort = Mutex(0)

    /// Builds the node over an open ledger: nothing runs yet. Throws when the listener's settings are refused.
    package convenience init(
        identity: Identity, database: AppDatabase, options: Options, logger: Logger
    ) throws(DaemonError) {
        try self.init(identity: identity, database: database, ledgerPath: nil, options: options, logger: logger)
    }

    private init(
        identity: Identity, database: AppDatabase, ledgerPath: String?, options: Options, logger: Logger
    ) throws(DaemonError) {
        self.identity = identity
        self.ledgerPath = ledgerPath
        temporaryDirectory =
            options.temporary ? ledgerPath.map { URL(filePath: $0).deletingLastPathComponent().path } : nil
        self.database = database
        var transport = options.transport
        transport.displayName = options.name
        do {
            sessions = try SessionManager(identity: identity, configuration: transport, logger: logger)
        } catch {
            throw .transport(error.description)
        }
        // At the session limit, paired peers' sessions are kept over unpaired ones'.
        // Unreadable counts as "not paired": at worst that session may be evicted at the session limit.
        sessions.preferPeers { peer in
            await database.isPaired(peer, logger: logger, otherwise: "its session is not preferred")
        }
        engine = PaymentEngine(
            me: identity.peerID, database: database, link: TransportLink(sessions: sessions),
            acceptanceQuote: options.acceptanceQuote, acceptFrom: options.acceptFrom,
            requestLimits: options.requestLimits,
            receiptIssuer: options.issuesReceipts
                ? ReceiptIssuer(signer: identity.receiptSigner, name: options.name) : nil,
            acceptTestPeriods: options.acceptTestPeriods, logger: logger)
    }

    /// Builds the node with the identity kept in `directory` (made there if there is none) and its ledger in
    /// `directory/ledger.sqlite`.
    package convenience init(directory: String, options: Options, logger: Logger) throws(DaemonError) {
        let identity: Identity
        let database: AppDatabase
        let path = URL(filePath: directory).appending(path: "ledger.sqlite").path
        do {
            identity = try Identity.loadOrCreate(in: URL(filePath: directory))
        } catch {
            throw .transport(error.description)
        }
        do {
            database = try AppDatabase(path: path)
        } catch {
            throw .storage(error.description)
        }
        try self.init(identity: identity, database: database, ledgerPath: path, options: options, logger: logger)
    }

    /// This node's peer ID.
    package var id: PeerID { identity.peerID }

    /// The router between the sessions and the engine; `takePaymentFrames(from:)` has been called.
    func router(resolutionPriority: ResolutionPriority? = nil) -> SessionEventRouter {
        let router = SessionEventRouter(engine: engine, resolutionPriority: resolutionPriority)
        router.takePaymentFrames(from: sessions)
        return router
    }

    /// Starts listening and runs the sessions and the router in tasks of their own until `stop()`; returns the port
    /// the listener got. For the benchmarks and the tests: the daemon runs the node in `PeerSessionsService`.
    package func runInBackground() async throws(DaemonError) -> Int {
        let router = router()
        let port: Int
        do {
            port = try await sessions.start()
        } catch {
            throw .transport(error.description)
        }
        let sessions = self.sessions
        // A listener that fails later ends the sessions, which the caller sees as peers that never come up.
        let run = Task { _ = try? await sessions.run() }
        let follow = Task { await router.run(sessions.events) }
        tasks.withLock { $0 = [run, follow] }
        boundPort.withLock { $0 = port }
        return port
    }

    /// The port `runInBackground()` listens on; 0 before.
    package var port: Int { boundPort.withLock { $0 } }

    /// Dials `other` (running in the background too) and waits until both sides hold the session; false when they
    /// do not after `checks` looks 10 ms apart (counted, not timed: a stalled process does not use them up).
    @discardableResult
    package func connect(to other: Node, checks: Int = 3_000) async -> Bool {
        await sessions.maintainConnection(key: "peer", host: "127.0.0.1", port: other.port, expectedPeerID: other.id)
        for _ in 0..<checks {
            if sessions.session(with: other.id) != nil, other.sessions.session(with: id) != nil { return true }
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                return false
            }
        }
        return sessions.session(with: other.id) != nil && other.sessions.session(with: id) != nil
    }

    /// Stops what `runInBackground()` started; the ledger stays on disk unless the node is `temporary`.
    package func stop() async {
        let running = tasks.withLock { $0 }
        for task in running { task.cancel() }
        for task in running { await task.value }
        if let temporaryDirectory {
            // Best effort: a directory already gone, or a file still open elsewhere, is left as it is.
            try? FileManager.default.removeItem(atPath: temporaryDirectory)
        }
    }
}
