import InterPayContract
import InterPayControl
import Synchronization

/// Hands every daemon event to each current subscriber (`interpay watch` connections).
final class EventBroadcaster: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<JSONValue>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    /// A stream of the events published from now on; it unregisters itself when its consumer stops.
    func subscribe() -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self, bufferingPolicy: .bufferingNewest(256))
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether anyone is subscribed now: an event nobody receives need not be built.
    var hasSubscribers: Bool { subscribers.withLock { !$0.isEmpty } }

    /// Sends `event`, encoded once, to every subscriber; an event that cannot be encoded is thrown.
    func publish(_ event: ControlEvent) throws {
        let json = try JSONValue(encoding: event)
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(json) }
    }

    /// Ends every subscription.
    func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
