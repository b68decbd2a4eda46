import Foundation
import InterPayCore
import Logging
import NIOCore
import Synchronization

/// One live session: its bounded outbound queue, when the peer last spoke, and the channel to close it.
///
/// Frames are written to the channel by whoever queues them (a ledger commit's frames from the commit's thread, in
/// one hop to the event loop and one flush): no task sits between the two. The queue is the frames handed to the
/// channel that the socket has not taken yet, counted until their writes complete. It holds `outboundCapacity`
/// frames while the peer reads slowly: a burst (a resend of a long outbox to a peer whose ledger is busy) may take
/// it up to `outboundHardCapacity` as long as writes keep completing. A peer that lets it fill and takes nothing for
/// `stallTimeout`, or lets it reach the hard bound, is not reading what we send, and is disconnected.
final class SessionHandle: Sendable {
    let info: SessionInfo
    /// Who dialed this connection (for resolving duplicates).
    let dialer: PeerID
    let channel: any Channel
    /// The frames that may wait to be written while the peer reads nothing.
    let outboundCapacity: Int
    /// The frames that may wait to be written at all.
    var outboundHardCapacity: Int { outboundCapacity * 8 }
    /// How long the socket may take no frame while `outboundCapacity` frames wait (or any frame, at a tick).
    let stallTimeout: Duration
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
        /// Frames handed to the channel whose writes have not completed.
        var queued = 0
        /// When a write last completed, or the queue last stopped being empty.
        var lastProgress = ContinuousClock.now
        /// No frame is queued any more (`finishOutbound`, or the session closed for not reading).
        var finished = false
        /// A write failed: the channel is closing.
        var writeFailed = false
        /// Waits in `outboundDone()` for the queue to empty once finished.
        var doneWaiter: CheckedContinuation<Void, Never>?
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
    }

    /// Queues a frame; false when the session is closing, or when the queue is full (see the type's documentation):
    /// then the peer is not reading what we send, and the session is closed.
    @discardableResult
    func enqueue(_ frame: OutboundFrame) -> Bool {
        enqueue([frame])
    }

    /// Writes frames together, with one flush (the frames of one ledger commit); false as for one frame. Each frame
    /// counts toward the bounds until its write completes.
    @discardableResult
    func enqueue(_ frames: [OutboundFrame]) -> Bool {
        guard !frames.isEmpty else { return true }
        let hard = outboundHardCapacity
        let admitted = state.withLock { state -> Bool? in
            if state.overflowed || state.finished || state.writeFailed { return false }
            let stalled = state.queued >= outboundCapacity && ContinuousClock.now - state.lastProgress > stallTimeout
            guard state.queued + frames.count <= hard, !stalled else {
                state.overflowed = true
                state.endReason = "peer not reading: \(state.queued) frames waiting to be sent"
                return nil
            }
            // An empty queue is no stall: the socket's time starts when there is something to write.
            if state.queued == 0 { state.lastProgress = .now }
            state.queued += frames.count
            return true
        }
        guard let admitted else {
            closeNotReading()
            return false
        }
        guard admitted else { return false }
        write(frames)
        return true
    }

    /// Hands `frames` to the channel on its event loop, in one hop and with one flush; their count leaves the queue
    /// when the last one's write completes (the channel writes in order, so the earlier ones are written by then).
    private func write(_ frames: [OutboundFrame]) {
        let channel = channel
        channel.eventLoop.execute {
            for frame in frames.dropLast() { channel.write(frame, promise: nil) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            // `frames` is not empty (see `enqueue`).
            channel.writeAndFlush(frames[frames.count - 1], promise: promise)
            promise.futureResult.whenComplete { result in
                let failed = if case .failure = result { true } else { false }
                self.written(frames.count, failed: failed)
            }
        }
    }

    /// `count` frames were written (or failed to be: the channel is closing).
    private func written(_ count: Int, failed: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.queued -= count
            state.lastProgress = .now
            if failed { state.writeFailed = true }
            guard state.writeFailed || (state.finished && state.queued == 0) else { return nil }
            defer { state.doneWaiter = nil }
            return state.doneWaiter
        }
        waiter?.resume()
    }

    /// Closes the session when frames wait and no write has completed for `stallTimeout` (the socket the peer does
    /// not read takes nothing), whatever the count: a peer that stops reading may also stop sending, and then nothing
    /// more is queued that `enqueue` could refuse. Asked at each keepalive interval. True when it closed the session.
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
            let writerStalled = state.queued > 0 && now - state.lastProgress > stallTimeout
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
        let waiter = state.withLock { state in
            state.finished = true
            // What is queued will not be written: whoever waits for the queue to empty need not.
            state.writeFailed = true
            defer { state.doneWaiter = nil }
            return state.doneWaiter
        }
        waiter?.resume()
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

    /// Frames handed to the channel and not yet written now.
    var queued: Int { state.withLock { $0.queued } }

    /// No more frames will be queued; `outboundDone()` returns once the queued ones are written.
    func finishOutbound() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            guard state.queued == 0 else { return nil }
            defer { state.doneWaiter = nil }
            return state.doneWaiter
        }
        waiter?.resume()
    }

    /// Returns once the queue is finished and written, a write failed, or the task is cancelled: then our side of
    /// the connection may be closed.
    func outboundDone() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    if state.writeFailed || (state.finished && state.queued == 0) || Task.isCancelled { return true }
                    state.doneWaiter = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.doneWaiter = nil }
                return state.doneWaiter
            }
            waiter?.resume()
        }
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
