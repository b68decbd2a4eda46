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

extension Node {
    /// A node as the daemon builds it (`Node`), in a temporary directory that `stop()` removes, running on
    /// loopback with quick redials.
    static func testing(
        name: String, acceptFrom: AcceptPolicy = .any, requestLimits: RequestLimiter.Limits = .init(),
        capabilities: [String] = [PaymentMessage.Pairing.capability]
    ) async throws -> Node {
        let directory = try TemporaryDirectory()
        var transport = TransportConfiguration(displayName: name, host: "127.0.0.1")
        transport.capabilities = capabilities
        transport.reconnectBackoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(500))
        var options = Node.Options(name: name, transport: transport)
        options.acceptFrom = acceptFrom
        options.requestLimits = requestLimits
        options.temporary = true
        var logger = Logger(label: "test.\(name)")
        logger.logLevel = .critical
        let node = try Node(directory: directory.url.path, options: options, logger: logger)
        TestTeardown.atEnd { await node.stop() }
        _ = try await node.runInBackground()
        return node
    }

    /// The ledger file, to open it a second time as a restarted daemon would.
    var databasePath: String { ledgerPath ?? "" }
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
        TestTeardown.atEnd { [self] in await stop() }
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
