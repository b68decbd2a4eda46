import InterPayCore
import InterPayDiscovery
import InterPayEngine
import InterPayTransport

/// Hands session events to the payment engine and to pairing, as the daemon does, one at a time and in order.
///
/// The engine queues each frame's step and returns before it commits, so frames on many payments share commits;
/// while `PaymentEngine.handle(_:)` waits for room in its bounded queue, the router takes no further event, the
/// session manager's event queue fills, and the sessions stop reading their sockets (no frame is dropped).
struct SessionEventRouter: Sendable {
    let engine: PaymentEngine
    let pairing: PairingCoordinator?
    /// Told which peers hold a session, so that discovery resolves the others first.
    var resolutionPriority: ResolutionPriority?

    /// Runs until the stream ends.
    func run(_ events: SessionEvents) async {
        for await event in events {
            switch event {
            case .up(let info):
                resolutionPriority?.sessionUp(name: info.name)
                await engine.handle(.up(TransportLink.linkSession(info)))
            case .down(let info, _):
                resolutionPriority?.sessionDown(name: info.name)
                await engine.handle(.down(TransportLink.linkSession(info)))
                await pairing?.sessionDown(info.peerID)
            case .message(.pair(let frame), let peer):
                await pairing?.receive(frame, from: peer)
            case .message(let message, let peer):
                await engine.handle(.frame(message, from: peer))
            case .refused:
                break
            }
        }
    }
}
