public import InterPayCore
import Synchronization

/// A link between engines in one process, without sockets or TLS: for the engine's tests and its micro benchmark.
///
/// `connect(_:_:)` opens a session between two links (each sees `.up`), `disconnect(_:_:)` ends it (each sees
/// `.down`; frames queued but not yet consumed are lost with it, as on a real connection). Frames are decoded with
/// `FrameCodec` on arrival, as the transport decodes them. Each link's `events` go to its engine's `handle(_:)`.
public final class MemoryLink: PaymentLink {
    /// Whose end this is.
    public let me: PeerID
    /// The name this end gives its peers.
    public let name: String
    /// The capabilities this end announces to its peers.
    public let capabilities: [String]
    /// What happens on this end, in order: feed it to the engine (`for await e in link.events { await engine.handle(e) }`).
    public let events: AsyncStream<LinkEvent>
    // Unbounded: both ends live in one test or benchmark, which bounds what it sends; a real link bounds its queue.
    private let continuation: AsyncStream<LinkEvent>.Continuation
    private let codec = FrameCodec()
    private let state = Mutex<[PeerID: (session: LinkSession, remote: MemoryLink, remoteSession: LinkSession)]>([:])
    private static let serials = Atomic<UInt64>(0)

    /// One end, for the node `me`.
    public init(
        me: PeerID, name: String,
        capabilities: [String] = [
            PaymentMessage.receiptsCapability, PaymentMessage.subscriptionsCapability, PaymentMessage.refundsCapability,
        ]
    ) {
        self.me = me
        self.name = name
        self.capabilities = capabilities
        (events, continuation) = AsyncStream.makeStream()
    }

    /// Opens a session between `a` and `b` (replacing any earlier one between them).
    public static func connect(_ a: MemoryLink, _ b: MemoryLink) {
        let serial = serials.add(1, ordering: .relaxed).newValue
        let atA = LinkSession(
            peerID: b.me, name: b.name, address: "memory:\(b.name)", serial: serial, capabilities: b.capabilities)
        let atB = LinkSession(
            peerID: a.me, name: a.name, address: "memory:\(a.name)", serial: serial, capabilities: a.capabilities)
        a.state.withLock { $0[b.me] = (atA, b, atB) }
        b.state.withLock { $0[a.me] = (atB, a, atA) }
        a.continuation.yield(.up(atA))
        b.continuation.yield(.up(atB))
    }

    /// Ends the session between `a` and `b`, if there is one.
    public static func disconnect(_ a: MemoryLink, _ b: MemoryLink) {
        let atA = a.state.withLock { $0.removeValue(forKey: b.me)?.session }
        let atB = b.state.withLock { $0.removeValue(forKey: a.me)?.session }
        if let atA { a.continuation.yield(.down(atA)) }
        if let atB { b.continuation.yield(.down(atB)) }
    }

    /// No more events (ends the engine's feed).
    public func finish() {
        continuation.finish()
    }

    public func session(with peer: PeerID) -> LinkSession? {
        state.withLock { $0[peer]?.session }
    }

    @discardableResult
    public func send(_ bodies: [[UInt8]], on session: LinkSession) -> Bool {
        guard let (current, remote, _) = state.withLock({ $0[session.peerID] }), current == session else {
            return false
        }
        for body in bodies {
            // Our own engine encoded it; a body that does not decode would be dropped by a real peer too.
            guard let message = try? codec.decodeBody(body) else { continue }
            remote.deliver(message, from: me, on: session.serial)
        }
        return true
    }

    private func deliver(_ message: PaymentMessage, from peer: PeerID, on serial: UInt64) {
        guard state.withLock({ $0[peer]?.session.serial == serial }) else { return }
        continuation.yield(.frame(message, from: peer))
    }
}
