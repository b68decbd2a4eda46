import Foundation
import InterPayCore
import InterPayEngine
import InterPayStore
import InterPayTestSupport
import InterPayTransport
import Logging
import Synchronization
import Testing

@testable import InterPayDaemon

/// A session manager on loopback started for a test, with a quiet logger and fast reconnects.
func makeSessionManager(
    name: String, directory: TemporaryDirectory, capabilities: [String] = [PaymentMessage.Pairing.capability]
) async throws -> (SessionManager, Int) {
    var configuration = TransportConfiguration(displayName: name, host: "127.0.0.1")
    configuration.capabilities = capabilities
    configuration.reconnectBackoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(500))
    var logger = Logger(label: "test.\(name)")
    logger.logLevel = .critical
    let manager = try SessionManager(
        identity: try Identity.loadOrCreate(in: directory.url), configuration: configuration, logger: logger)
    return (manager, try await manager.start())
}

/// A daemon's payment side without its control socket or discovery: sessions on loopback feeding a real
/// `PaymentEngine` with a ledger in a temporary directory, wired as `PeerService` wires them.
final class EngineHarness: Sendable {
    let sessions: SessionManager
    let engine: PaymentEngine
    let pairing: PairingCoordinator
    let database: AppDatabase
    let port: Int
    private let directory: TemporaryDirectory
    private let tasks: Mutex<[Task<Void, Never>]>

    init(
        name: String, acceptFrom: AcceptPolicy = .any, requestLimits: RequestLimiter.Limits = .init(),
        capabilities: [String] = [PaymentMessage.Pairing.capability]
    ) async throws {
        directory = try TemporaryDirectory()
        (sessions, port) = try await makeSessionManager(name: name, directory: directory, capabilities: capabilities)
        database = try AppDatabase(path: directory.url.appending(path: "ledger.sqlite").path)
        var logger = Logger(label: "test.\(name).engine")
        logger.logLevel = .critical
        let engine = PaymentEngine(
            me: sessions.identity.peerID, database: database, link: TransportLink(sessions: sessions),
            acceptFrom: acceptFrom, requestLimits: requestLimits,
            receiptIssuer: ReceiptIssuer(signer: sessions.identity.receiptSigner, name: name), logger: logger)
        self.engine = engine
        let pairing = PairingCoordinator(database: database, sessions: sessions, logger: logger)
        self.pairing = pairing
        let sessions = self.sessions
        let run = Task { _ = try? await sessions.run() }
        let follow = Task { await SessionEventRouter(engine: engine, pairing: pairing).run(sessions.events) }
        tasks = Mutex([run, follow])
    }

    /// Dials `other` and waits until both sides hold the session.
    func connect(to other: EngineHarness) async {
        await sessions.maintainConnection(key: "peer", host: "127.0.0.1", port: other.port, expectedPeerID: other.id)
        let (me, them) = (id, other.id)
        await eventually("a session between the two harnesses") {
            let mine = await self.sessions.currentSessions()
            let theirs = await other.sessions.currentSessions()
            return mine.contains { $0.peerID == them } && theirs.contains { $0.peerID == me }
        }
    }

    var id: PeerID { sessions.identity.peerID }

    /// The ledger file, to open it a second time as a restarted daemon would.
    var databasePath: String { directory.url.appending(path: "ledger.sqlite").path }

    func stop() async {
        let running = tasks.withLock { $0 }
        for task in running { task.cancel() }
        for task in running { await task.value }
        directory.remove()
    }
}

/// A peer whose frames the test writes by hand: a bare session manager that records what it receives.
final class ScriptedPeer: Sendable {
    let sessions: SessionManager
    private let directory: TemporaryDirectory
    private let received = Mutex<[PaymentMessage]>([])
    private let up = Mutex(false)
    private let tasks: Mutex<[Task<Void, Never>]>

    init(name: String) async throws {
        directory = try TemporaryDirectory()
        (sessions, _) = try await makeSessionManager(name: name, directory: directory)
        let sessions = self.sessions
        let run = Task { _ = try? await sessions.run() }
        tasks = Mutex([run])
        let record = Task { [self] in
            for await event in sessions.events {
                switch event {
                case .up: up.withLock { $0 = true }
                case .message(let message, _): received.withLock { $0.append(message) }
                default: break
                }
            }
        }
        tasks.withLock { $0.append(record) }
    }

    var id: PeerID { sessions.identity.peerID }
    var isUp: Bool { up.withLock { $0 } }
    var messages: [PaymentMessage] { received.withLock { $0 } }

    /// The errors received that refer to `messageID`, in order.
    func errors(for messageID: UUID) -> [PaymentMessage.ErrorFrame] {
        messages.compactMap { if case .error(let error) = $0, error.ref == messageID { error } else { nil } }
    }

    /// The acks received for `messageID`, in order.
    func acks(for messageID: UUID) -> [PaymentMessage.Acknowledgement] {
        messages.compactMap { if case .ack(let ack) = $0, ack.ackedID == messageID { ack } else { nil } }
    }

    func stop() async {
        let running = tasks.withLock { $0 }
        for task in running { task.cancel() }
        for task in running { await task.value }
        directory.remove()
    }
}
