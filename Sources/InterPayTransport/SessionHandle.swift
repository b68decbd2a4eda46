import Foundation
import InterPayCore
import Logging
import NIOCore
import Synchronization

/// One live session: its bounded outbound queue, when the peer last spoke, and the channel to close it.
///
/// The outbound queue holds `outboundCapacity` frames while the peer reads slowly: a burst (a resend of a long
/// outbox to a peer whose ledger is busy) may take it up to `outboundHardCapacity` as long as the writer keeps
/// handing frames to the socket. A peer that lets it fill and reads nothing for `stallTimeout`, or lets it reach
/// the hard bound, is not reading what we send, and is disconnected.
final class SessionHandle: Sendable {
    let info: SessionInfo
    /// Who dialed this connection (for resolving duplicates).
    let dialer: PeerID
    let channel: any Channel
    let outgoing: AsyncStream<[OutboundFrame]>
    /// The frames that may wait to be written while the peer reads nothing.
    let outboundCapacity: Int
    /// The frames that may wait to be written at all.
    var outboundHardCapacity: Int { outboundCapacity * 8 }
    /// How long the writer may hand no frame to the socket while `outboundCapacity` frames wait.
    let stallTimeout: Duration
    private let continuation: AsyncStream<[OutboundFrame]>.Continuation
    private let logger: Logger
    private let state: Mutex<State>
    private let isWritable: @Sendable () -> Bool

    private struct State {
        var lastInbound = ContinuousClock.now
        /// Whether the reader waits for the daemon to take a frame (backpressure): the socket is not read meanwhile.
        var readsHeld = false
        /// When the peer last sent a frame for the daemon (not `ping` or `pong`): how idle the session is.
        var lastUsed = ContinuousClock.now
        var endReason: String?
        var queued = 0
        /// When the writer last finished a write or took frames while idle, or the queue last stopped being empty.
        var lastProgress = ContinuousClock.now
        /// Whether the writer is inside a write (taken off the queue, not yet accepted by the socket).
        var writing = false
        var overflowed = false
        /// Since when the channel has been seen unwritable at the keepalive ticks (nil: writable at the last one).
        var unwritableSince: ContinuousClock.Instant?
        var preferred: Bool
    }

    /// `isWritable` reads the channel's writability (a socket channel's is safe to read from any thread; tests of a
    /// single-threaded embedded channel give their own).
    init(
        info: SessionInfo, dialer: PeerID, channel: any Channel, outboundCapacity: Int, preferred: Bool,
        logger: Logger, stallTimeout: Duration = .seconds(5), isWritable: (@Sendable () -> Bool)? = nil
    ) {
        self.isWritable = isWritable ?? { [channel] in channel.isWritable }
        self.stallTimeout = stallTimeout
        self.info = info
        self.dialer = dialer
        self.channel = channel
        self.outboundCapacity = max(1, outboundCapacity)
        self.logger = logger
        self.state = Mutex(State(preferred: preferred))
        // The count in `State.queued` bounds this stream: `enqueue` refuses a frame beyond `outboundCapacity`.
        (outgoing, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Queues a frame; false when the session is closing, or when the queue is full (see the type's documentation):
    /// then the peer is not reading what we send, and the session is closed.
    @discardableResult
    func enqueue(_ frame: OutboundFrame) -> Bool {
        enqueue([frame])
    }

    /// Queues frames that the writer writes together, with one flush (the frames of one ledger commit); false as for
    /// one frame. Each frame counts toward the bounds.
    @discardableResult
    func enqueue(_ frames: [OutboundFrame]) -> Bool {
        guard !frames.isEmpty else { return true }
        let hard = outboundHardCapacity
        let admitted = state.withLock { state -> Bool? in
            if state.overflowed { return false }
            let stalled = state.queued >= outboundCapacity && ContinuousClock.now - state.lastProgress > stallTimeout
            guard state.queued + frames.count <= hard, !stalled else {
                state.overflowed = true
                state.endReason = "peer not reading: \(state.queued) frames waiting to be sent"
                return nil
            }
            // An empty queue is no stall: the writer's time starts when there is something to write.
            if state.queued == 0 { state.lastProgress = .now }
            state.queued += frames.count
            return true
        }
        guard let admitted else {
            closeNotReading()
            return false
        }
        guard admitted else { return false }
        if case .enqueued = continuation.yield(frames) { return true }
        state.withLock { $0.queued -= frames.count }
        return false
    }

    /// Closes the session when frames wait, or a write has not finished, and the writer has made no progress for
    /// `stallTimeout` (it is blocked on a socket the peer does not read), whatever the count: a peer that stops
    /// reading may also stop sending, and then nothing more is queued that `enqueue` could refuse. The writer takes
    /// frames off the queue before it writes them, so a blocked write with an empty queue is a stall too. Asked at
    /// each keepalive interval. True when it closed the session.
    func closeIfStalled() -> Bool {
        // Bytes already handed to the channel that the peer does not take keep it unwritable even when nothing of ours
        // waits: seen unwritable at two ticks at least the stall timeout apart is a stall too.
        let writable = isWritable()
        let stalled = state.withLock { state -> Bool in
            let now = ContinuousClock.now
            if writable {
                state.unwritableSince = nil
            } else if state.unwritableSince == nil {
                state.unwritableSince = now
            }
            guard !state.overflowed else { return false }
            let writerStalled = (state.queued > 0 || state.writing) && now - state.lastProgress > stallTimeout
            let unwritableFor = state.unwritableSince.map { now - $0 } ?? .zero
            let channelStalled = state.unwritableSince != nil && unwritableFor >= stallTimeout
            guard writerStalled || channelStalled else { return false }
            state.overflowed = true
            state.endReason =
                writerStalled
                ? "peer not reading: \(state.queued) frames waiting to be sent"
                : "peer not reading: the connection has taken nothing for \(unwritableFor)"
            return true
        }
        if stalled { closeNotReading() }
        return stalled
    }

    /// Logs that the peer does not read, ends the queue and closes the channel (the state says so already).
    private func closeNotReading() {
        logger.notice(
            "peer does not read; session closed",
            metadata: ["peer": "\(info.name)", "id": "\(info.peerID.shortDescription)", "queued": "\(queued)"])
        continuation.finish()
        abort()
    }

    /// Closes the connection without waiting for what is queued to reach the peer: the socket is closed with
    /// `SO_LINGER` 0, so the peer gets a reset instead of a FIN behind the unsent bytes. For a peer that does not read
    /// or has gone silent: a FIN queued behind data its full window never takes is never sent, and the kernel would
    /// keep the socket and its buffers for minutes, retransmitting with back-off, while the peer's own sends stay
    /// blocked with no sign that the session is over. (The TLS close still runs first, bounded by its shutdown
    /// timeout.) A channel that is not a socket (tests) is closed as usual.
    func abort() {
        guard let socket = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { [channel] _ in
            // Set or not (the socket may be closing already), the channel is closed.
            channel.close(promise: nil)
        }
    }

    /// The writer took `count` frames off the queue, to write them now.
    func dequeued(_ count: Int = 1) {
        state.withLock {
            $0.queued -= count
            $0.lastProgress = .now
            $0.writing = true
        }
    }

    /// The writer's write finished: the socket took the frames.
    func wrote() {
        state.withLock {
            $0.lastProgress = .now
            $0.writing = false
        }
    }

    /// Frames waiting to be written now.
    var queued: Int { state.withLock { $0.queued } }

    /// No more frames will be queued; the writer closes our side after the queued ones.
    func finishOutbound() {
        continuation.finish()
    }

    /// Records that the peer sent something; `used` when it was a frame for the daemon.
    func markInbound(used: Bool = false) {
        state.withLock {
            $0.lastInbound = .now
            if used { $0.lastUsed = $0.lastInbound }
        }
    }

    /// The reader waits for the daemon to take a frame (`hold`), or goes back to the socket: time spent holding is
    /// this side's, not the peer's silence, so the silence starts again when reading does.
    func holdReads(_ hold: Bool) {
        state.withLock {
            $0.readsHeld = hold
            if !hold { $0.lastInbound = .now }
        }
    }

    /// How long the peer has been silent: zero while this side holds its reads (the peer may have sent plenty).
    var silence: Duration {
        state.withLock { $0.readsHeld ? .zero : ContinuousClock.now - $0.lastInbound }
    }

    /// When the peer last sent a frame for the daemon (the session's start if none).
    var lastUsed: ContinuousClock.Instant {
        state.withLock { $0.lastUsed }
    }

    /// Whether the daemon wants to keep this peer's session over others' (a paired peer).
    var preferred: Bool {
        get { state.withLock { $0.preferred } }
        set { state.withLock { $0.preferred = newValue } }
    }

    /// Why the session ended, when the manager ended it.
    var endReason: String? {
        get { state.withLock { $0.endReason } }
        set { state.withLock { $0.endReason = newValue } }
    }
}
