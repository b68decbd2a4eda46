import Synchronization

/// The session events on their way from the transport to their one consumer (the daemon), bounded without losing
/// any (PROTOCOL.md §9.1).
///
/// A session's read loop hands each frame over with `send(_:)`, which waits while `frameCapacity` frames wait for
/// the consumer: the read loop then stops pulling frames, the channel's small inbound buffer fills, and the
/// channel stops reading the socket, so a peer that sends faster than the daemon processes is slowed down instead of
/// losing frames. Session `up` and `down` events never wait and are never dropped (each session makes at most one
/// of each). `refused` events are informational: beyond `refusalCapacity` waiting ones, new ones are dropped, so
/// that a flood of bad connections cannot grow the queue.
public final class SessionEvents: AsyncSequence, Sendable {
    /// Each event.
    public typealias Element = SessionEvent
    /// Iterating never fails.
    public typealias Failure = Never

    private struct State {
        var buffer: [SessionEvent] = []
        var head = 0
        var frames = 0
        var refusals = 0
        var finished = false
        var consumer: CheckedContinuation<SessionEvent?, Never>?
        var producers: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextProducer = 0

        var isEmpty: Bool { head == buffer.count }

        /// Takes the oldest event, and the producer that may now add a frame.
        mutating func take() -> (SessionEvent, CheckedContinuation<Void, Never>?) {
            let event = buffer[head]
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: buffer.capacity <= 4_096)
                head = 0
            } else if head >= 1_024, head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            switch event {
            case .message:
                frames -= 1
                // Room for one more frame: the longest-waiting sender may add it.
                return (event, producers.isEmpty ? nil : producers.removeFirst().continuation)
            case .refused: refusals -= 1
            case .up, .down: break
            }
            return (event, nil)
        }
    }

    /// The most frames that wait for the consumer; a further frame's sender waits.
    public let frameCapacity: Int
    /// The most `refused` events that wait for the consumer; further ones are dropped.
    public let refusalCapacity: Int
    private let state = Mutex(State())

    /// An empty queue.
    public init(frameCapacity: Int = 1_024, refusalCapacity: Int = 256) {
        self.frameCapacity = Swift.max(1, frameCapacity)
        self.refusalCapacity = refusalCapacity
    }

    /// How many frames wait for the consumer now.
    public var waitingFrames: Int { state.withLock { $0.frames } }

    /// Hands a frame (a `.message` event) over, waiting while the queue holds `frameCapacity` frames. A cancelled
    /// sender does not wait any longer: its frame is queued beyond the capacity (by at most one per session).
    func send(_ event: SessionEvent) async {
        let id = state.withLock { state -> Int? in
            guard !state.finished, state.frames >= frameCapacity, !Task.isCancelled else { return nil }
            state.nextProducer += 1
            return state.nextProducer
        }
        if let id {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let proceed = state.withLock { state -> Bool in
                        guard !state.finished, state.frames >= frameCapacity, !Task.isCancelled else { return true }
                        state.producers.append((id, continuation))
                        return false
                    }
                    if proceed { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard let index = state.producers.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.producers.remove(at: index).continuation
                }
                waiter?.resume()
            }
        }
        append(event)
    }

    /// Queues a session `up`, `down` or `refused` event without waiting.
    func yield(_ event: SessionEvent) {
        append(event)
    }

    private func append(_ event: SessionEvent) {
        let (consumer, producer) = state.withLock {
            state -> (CheckedContinuation<SessionEvent?, Never>?, CheckedContinuation<Void, Never>?) in
            guard !state.finished else { return (nil, nil) }
            if case .refused = event {
                guard state.refusals < refusalCapacity else { return (nil, nil) }
            }
            if let consumer = state.consumer {
                // The consumer waits, so the queue is empty: the event goes straight to it.
                state.consumer = nil
                return (consumer, nil)
            }
            state.buffer.append(event)
            switch event {
            case .message: state.frames += 1
            case .refused: state.refusals += 1
            case .up, .down: break
            }
            return (nil, nil)
        }
        consumer?.resume(returning: event)
        producer?.resume()
    }

    /// Ends the sequence once the queued events are consumed; later events are ignored and no sender waits.
    func finish() {
        let (consumer, producers) = state.withLock { state in
            state.finished = true
            let waiting = state.producers.map(\.continuation)
            state.producers = []
            let consumer = state.isEmpty ? state.consumer : nil
            state.consumer = nil
            return (consumer, waiting)
        }
        consumer?.resume(returning: nil)
        for producer in producers { producer.resume() }
    }

    private func next() async -> SessionEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SessionEvent?, Never>) in
                let (ready, producer) = state.withLock {
                    state -> (SessionEvent??, CheckedContinuation<Void, Never>?) in
                    if !state.isEmpty {
                        let (event, producer) = state.take()
                        return (.some(event), producer)
                    }
                    if state.finished || Task.isCancelled { return (.some(nil), nil) }
                    state.consumer = continuation
                    return (nil, nil)
                }
                producer?.resume()
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let consumer = state.withLock { state in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(returning: nil)
        }
    }

    /// Iterates the events in the order they were queued.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let events: SessionEvents

        /// The next event, or nil once the manager stopped (or the consuming task was cancelled).
        public mutating func next() async -> SessionEvent? {
            await events.next()
        }

        /// The next event, or nil once the manager stopped.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> SessionEvent? {
            await events.next()
        }
    }

    /// The iterator; iterate from one task only.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: self)
    }
}
