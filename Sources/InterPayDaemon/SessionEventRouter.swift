import InterPayCore
import InterPayTransport

/// Hands session events to the payment engine and to pairing, as the daemon does.
///
/// Frames are admitted to the engine in arrival order and then processed concurrently, so that frames on different
/// payments share commits while frames on one payment keep their order (`PaymentEngine.admit(_:)`). At most
/// `maxConcurrentFrames` frames are processed at once: while that many are, the router takes no further event, the
/// session manager's event queue fills, and the sessions stop reading their sockets (no frame is dropped).
struct SessionEventRouter: Sendable {
    let engine: PaymentEngine
    let pairing: PairingCoordinator?
    /// The most frames processed at once.
    var maxConcurrentFrames = 64

    /// Runs until the stream ends.
    func run(_ events: SessionEvents) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await event in events {
                switch event {
                case .up(let info):
                    await engine.sessionUp(info)
                case .down(let info, _):
                    await engine.sessionDown(info)
                    await pairing?.sessionDown(info.peerID)
                case .message(.pair(let frame), let peer):
                    await pairing?.receive(frame, from: peer)
                case .message(let message, let peer):
                    if running >= maxConcurrentFrames, await group.next() != nil { running -= 1 }
                    let ticket = await engine.admit(message)
                    group.addTask { await engine.receive(message, from: peer, ticket: ticket) }
                    running += 1
                case .refused:
                    break
                }
            }
        }
    }
}
