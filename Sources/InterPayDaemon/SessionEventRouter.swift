import InterPayCore
import InterPayTransport

/// Hands session events to the payment engine and to pairing, as the daemon does.
///
/// Frames are admitted to the engine in arrival order and then processed concurrently, so that frames on different
/// payments share commits while frames on one payment keep their order (`PaymentEngine.admit(_:)`).
struct SessionEventRouter: Sendable {
    let engine: PaymentEngine
    let pairing: PairingCoordinator?

    /// Runs until the stream ends.
    func run(_ events: AsyncStream<SessionEvent>) async {
        await withDiscardingTaskGroup { group in
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
                    let ticket = await engine.admit(message)
                    group.addTask { await engine.receive(message, from: peer, ticket: ticket) }
                case .refused:
                    break
                }
            }
        }
    }
}
