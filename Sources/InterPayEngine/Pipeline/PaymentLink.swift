public import InterPayCore

/// A session with a peer as the engine sees it: who, under which name, from where, and which session it is.
public struct LinkSession: Sendable, Hashable {
    /// The peer's ID, proven by its key.
    public let peerID: PeerID
    /// The name the peer gave.
    public let name: String
    /// The peer's address as `host:port`.
    public let address: String
    /// Tells two sessions with the same peer apart: every new session has a new serial.
    public let serial: UInt64
    /// The optional features the peer announced in its `hello` (e.g. `receipts`).
    public let capabilities: [String]

    /// A session as a link reports it.
    public init(peerID: PeerID, name: String, address: String, serial: UInt64, capabilities: [String] = []) {
        self.peerID = peerID
        self.name = name
        self.address = address
        self.serial = serial
        self.capabilities = capabilities
    }

    /// Whether the peer speaks settlement and receipts (`paid`, `settle`).
    public var supportsReceipts: Bool { capabilities.contains(PaymentMessage.receiptsCapability) }

    /// Whether the peer speaks subscription series (`series` frames, requests linked to a series).
    public var supportsSubscriptions: Bool { capabilities.contains(PaymentMessage.subscriptionsCapability) }
}

extension PaymentLink {
    /// Whether `capability` is spoken on `session`: announced by the peer in its `hello` and by this end in its own
    /// (PROTOCOL.md §14). Without a session, nothing is.
    public func shares(_ capability: String, on session: LinkSession?) -> Bool {
        guard let session else { return false }
        return session.capabilities.contains(capability) && capabilities.contains(capability)
    }
}

/// What the engine needs of the sessions: which peer has one now, and a way to hand it frames. The daemon plugs its
/// TLS session manager in; tests and benchmarks use `MemoryLink`.
///
/// Its calls but `trustChanged(for:)` are synchronous and must not block: the engine makes them between a ledger commit and the next, in
/// commit order, so that frames to a peer leave in the order their commits happened.
public protocol PaymentLink: Sendable {
    /// The capabilities this end announces in its `hello`: a frame of a capability is spoken on a session only when
    /// both ends announce it (PROTOCOL.md §14).
    var capabilities: [String] { get }

    /// The display name this end announces in its `hello` (a payer's receipts must name it, PROTOCOL.md §17.4).
    var name: String { get }

    /// The session with `peer` now, if any.
    func session(with peer: PeerID) -> LinkSession?

    /// Queues encoded frame bodies (`FrameCodec.encodeBody`, no length prefix) on `session`, in order; false when
    /// that session is gone or refuses them (then nothing is lost: the outbox keeps every frame that matters, and
    /// the next session gets it all again).
    @discardableResult
    func send(_ bodies: [[UInt8]], on session: LinkSession) -> Bool

    /// Says whether a pairing attempt with `peer` is in progress: while one is, its session is not to be given up
    /// for another's (the daemon: never evicted at the session limit). Called inside the step that starts or ends
    /// the attempt, before any frame of it is handed over.
    func setPairingInProgress(_ inProgress: Bool, for peer: PeerID)

    /// Says, after the commit and before the command that did it returns, that the local user paired with `peer` or
    /// forgot the pairing (the daemon: its session is kept over others' from now on, or no longer).
    func trustChanged(for peer: PeerID) async
}

extension PaymentLink {
    /// A link without a session limit has nothing to keep: by default, nothing happens.
    public func setPairingInProgress(_ inProgress: Bool, for peer: PeerID) {}

    /// A link without a session limit has nothing to keep: by default, nothing happens.
    public func trustChanged(for peer: PeerID) async {}
}

/// What happens on the link, in the order the engine must see it.
public enum LinkEvent: Sendable {
    /// A session came up (a new one replaces any earlier one with the same peer).
    case up(LinkSession)
    /// The session went down.
    case down(LinkSession)
    /// A frame from a peer (the transport keeps its own `hello`, `ping`, `pong` and `close`).
    case frame(PaymentMessage, from: PeerID)
}
