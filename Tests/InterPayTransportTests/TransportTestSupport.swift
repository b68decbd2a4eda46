import Foundation
import InterPayCore
import InterPayTestSupport
import InterPayTransport
import Logging
import Synchronization
import Testing

/// A session manager on loopback with its events recorded, for tests.
final class TestPeer: Sendable {
    let manager: SessionManager
    let directory: TemporaryDirectory
    let port: Int
    private let recorded = Mutex<[SessionEvent]>([])
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init(name: String, configure: (inout TransportConfiguration) -> Void = { _ in }) async throws {
        directory = try TemporaryDirectory()
        let identity = try Identity.loadOrCreate(in: directory.url)
        var configuration = TransportConfiguration(displayName: name, host: "127.0.0.1")
        configuration.reconnectBackoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(500))
        configure(&configuration)
        var logger = Logger(label: "test.\(name)")
        logger.logLevel = .critical
        manager = try SessionManager(identity: identity, configuration: configuration, logger: logger)
        port = try await manager.start()
        let manager = self.manager
        let run = Task { _ = try? await manager.run() }
        let consume = Task { [self] in
            for await event in manager.events { self.record(event) }
        }
        tasks.withLock { $0 = [run, consume] }
    }

    private func record(_ event: SessionEvent) {
        recorded.withLock { $0.append(event) }
    }

    var id: PeerID { manager.identity.peerID }
    var events: [SessionEvent] { recorded.withLock { $0 } }

    func upPeers() -> [PeerID] {
        events.compactMap { if case .up(let info) = $0 { info.peerID } else { nil } }
    }

    func messages() -> [PaymentMessage] {
        events.compactMap { if case .message(let message, _) = $0 { message } else { nil } }
    }

    func refusals() -> [String] {
        events.compactMap { if case .refused(_, let reason) = $0 { reason } else { nil } }
    }

    func stop() async {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for task in tasks.withLock({ $0 }) { await task.value }
        directory.remove()
    }
}
