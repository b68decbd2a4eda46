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

/// PROTOCOL.md §9.3: on a new session, every unacknowledged frame goes out again, in order, before any new frame —
/// also when the engine sends a new frame before it has handled the session's `up` event (a busy engine handles its
/// events late; the session manager already routes frames to the new session).
@Suite("Resending on a new session", .tearsDown, .serialized)
struct ResendOrderTests {
    /// A payee's engine wired as `Node` wires it, except that session-up events wait while held.
    final class HeldUpEngine: Sendable {
        let sessions: SessionManager
        let engine: PaymentEngine
        let port: Int
        private let directory: TemporaryDirectory
        private let held = HeldEvents()
        private let tasks: Mutex<[Task<Void, Never>]>

        init(name: String) async throws {
            directory = try TemporaryDirectory()
            (sessions, port) = try await makeSessionManager(name: name, directory: directory)
            let database = try AppDatabase(path: directory.url.appending(path: "ledger.sqlite").path)
            var logger = Logger(label: "test.\(name).engine")
            logger.logLevel = .critical
            let engine = PaymentEngine(
                me: sessions.identity.peerID, database: database, link: TransportLink(sessions: sessions),
                logger: logger)
            self.engine = engine
            let sessions = self.sessions
            let held = self.held
            let run = Task { _ = try? await sessions.run() }
            let follow = Task {
                for await event in sessions.events {
                    switch event {
                    case .up(let info):
                        let hold = held.state.withLock { state in
                            if state.holding { state.infos.append(info) }
                            return state.holding
                        }
                        if !hold { await engine.handle(.up(TransportLink.linkSession(info))) }
                    case .down(let info, _): await engine.handle(.down(TransportLink.linkSession(info)))
                    case .message(let message, let peer): await engine.handle(.frame(message, from: peer))
                    case .refused: break
                    }
                }
            }
            tasks = Mutex([run, follow])
            TestTeardown.atEnd { [self] in await stop() }
        }

        var id: PeerID { sessions.identity.peerID }

        /// From now on the engine hears of new sessions only at `releaseSessionUps()`.
        func holdSessionUps() {
            held.state.withLock { $0.holding = true }
        }

        /// Hands the held session-up events to the engine and stops holding.
        func releaseSessionUps() async {
            let infos = held.state.withLock { state in
                state.holding = false
                defer { state.infos = [] }
                return state.infos
            }
            for info in infos { await engine.handle(.up(TransportLink.linkSession(info))) }
        }

        func stop() async {
            let running = tasks.withLock { $0 }
            for task in running { task.cancel() }
            for task in running { await task.value }
            directory.remove()
        }
    }

    /// Whether session-up events are held, and the ones held so far.
    final class HeldEvents: Sendable {
        let state = Mutex<(holding: Bool, infos: [SessionInfo])>((false, []))
    }

    /// The request and cancel frames among `messages`, as "request ID" or "cancel ID" (message IDs).
    static func paymentFrames(_ messages: some Sequence<PaymentMessage>, of payment: UUID) -> [String] {
        messages.compactMap { message in
            switch message {
            case .request(let request) where request.payment.id == payment:
                "request \(request.messageID.wireString)"
            case .cancel(let cancel) where cancel.paymentID == payment:
                "cancel \(cancel.messageID.wireString)"
            default:
                nil
            }
        }
    }

    @Test("a request lost with a broken session is resent before a cancel sent on the next session")
    func lostRequestBeforeCancel() async throws {
        let alice = try await HeldUpEngine(name: "alice")  // payee, real engine
        let bob = try await ScriptedPeer(name: "bob")  // payer, scripted: it never acks
        await bob.sessions.maintainConnection(
            key: "alice", host: "127.0.0.1", port: alice.port, expectedPeerID: alice.id)
        await eventually("a session between alice and bob") {
            let up = await alice.sessions.currentSessions()
            return bob.isUp && !up.isEmpty
        }
        let record = try await alice.engine.request(
            from: bob.id, amount: Money(minorUnits: 900, currency: CurrencyCode("EUR")), memo: "", category: nil,
            expiresIn: 900)
        await eventually("bob receives the request") { !Self.paymentFrames(bob.messages, of: record.id).isEmpty }
        let request = try #require(Self.paymentFrames(bob.messages, of: record.id).first)
        let firstSession = try #require(await alice.sessions.currentSessions().first)

        // The session breaks before bob's ack (as when a daemon is killed): the request stays unacknowledged. bob
        // dials again; alice cancels before her engine has handled the new session's up event.
        alice.holdSessionUps()
        let before = bob.messages.count
        await alice.sessions.closeAll(reason: "connection lost")
        await eventually("a new session") {
            await alice.sessions.currentSessions().contains { $0 != firstSession }
        }
        let cancelled = try await alice.engine.decide(.cancel, paymentID: record.id, wait: .zero)
        #expect(cancelled.state == .cancelled)
        await alice.releaseSessionUps()
        await eventually("bob receives the cancel") {
            Self.paymentFrames(bob.messages.dropFirst(before), of: record.id).contains { $0.hasPrefix("cancel") }
        }

        // On the new session the request comes first: a payer that never got it would otherwise answer the cancel
        // with unknown-payment, the payee would stop resending the cancel, and the two ledgers would disagree.
        let frames = Self.paymentFrames(bob.messages.dropFirst(before), of: record.id)
        #expect(frames.first == request, "frames on the new session: \(frames)")
        await bob.stop()
        await alice.stop()
    }
}
