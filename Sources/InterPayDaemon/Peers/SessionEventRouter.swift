import InterPayCore
import InterPayDiscovery
import InterPayEngine
import InterPayTransport

/// Hands session events to the payment engine (payments and pairing), as the daemon does, one at a time and in order; with
/// `takePaymentFrames(from:)`, payment frames go from each session's reader to the engine without it.
///
/// The engine queues each frame's step and returns before it commits, so frames on many payments share commits;
/// while `PaymentEngine.handle(_:)` waits for room in its bounded queue, the reader that hands the frame over (or
/// the router) waits, and the session stops reading its socket (no frame is dropped).
struct SessionEventRouter: PaymentFrameSink {
    let engine: PaymentEngine
    /// Told which peers hold a session, so that discovery resolves the others first.
    var resolutionPriority: ResolutionPriority?

    /// Has the sessions' readers hand payment frames straight to the engine: one thread hand-off fewer per frame
    /// than through the event queue and this router's task. Call it before the sessions run.
    func takePaymentFrames(from sessions: SessionManager) {
        sessions.deliverPaymentFrames(to: self)
    }

    /// Hands a payment frame from a session's reader to the engine.
    func take(_ message: PaymentMessage, from peer: PeerID) async {
        await engine.handle(.frame(message, from: peer))
    }

    /// Runs until the stream ends.
    func run(_ events: SessionEvents) async {
        for await event in events {
            switch event {
            case .up(let info):
                // The peer's log lines without an address share its address's budget.
                PeerLogBudget.shared.associate(peer: info.peerID.shortDescription, host: info.host)
                resolutionPriority?.sessionUp(peer: info.peerID.description, name: info.name)
                await engine.handle(.up(TransportLink.linkSession(info)))
            case .down(let info, _):
                resolutionPriority?.sessionDown(peer: info.peerID.description)
                await engine.handle(.down(TransportLink.linkSession(info)))
            case .message(let message, let peer):
                await engine.handle(.frame(message, from: peer))
            case .refused:
                break
            }
        }
    }
}
