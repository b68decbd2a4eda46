import Foundation
import InterPayCore
import NIOCore
import Synchronization

/// One live session: its outbound queue, when the peer last spoke, and the channel to close it.
final class SessionHandle: Sendable {
    let info: SessionInfo
    /// Who dialed this connection (for resolving duplicates).
    let dialer: PeerID
    let channel: any Channel
    let outgoing: AsyncStream<PaymentMessage>
    private let continuation: AsyncStream<PaymentMessage>.Continuation
    private let state = Mutex(State())

    private struct State {
        var lastInbound = ContinuousClock.now
        var endReason: String?
    }

    init(info: SessionInfo, dialer: PeerID, channel: any Channel) {
        self.info = info
        self.dialer = dialer
        self.channel = channel
        (outgoing, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Queues a frame; false when the session is already closing.
    @discardableResult
    func enqueue(_ message: PaymentMessage) -> Bool {
        if case .enqueued = continuation.yield(message) { return true }
        return false
    }

    /// No more frames will be queued; the writer closes our side after the queued ones.
    func finishOutbound() {
        continuation.finish()
    }

    /// Records that the peer sent something.
    func markInbound() {
        state.withLock { $0.lastInbound = .now }
    }

    /// How long the peer has been silent.
    var silence: Duration {
        state.withLock { ContinuousClock.now - $0.lastInbound }
    }

    /// Why the session ended, when the manager ended it.
    var endReason: String? {
        get { state.withLock { $0.endReason } }
        set { state.withLock { $0.endReason = newValue } }
    }
}
