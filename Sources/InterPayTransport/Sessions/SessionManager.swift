import Foundation
import InterPayChannels
public import InterPayCore
import InterPayMetrics
public import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Listens for peers, dials peers, and keeps one authenticated session per peer.
///
/// Every connection is TLS 1.3 with certificates on both sides; the peer ID of the other side is the hash of its
/// certificate key. After TLS both sides send `hello`; the highest common version wins. A connection that has not
/// finished TLS and `hello` within `handshakeTimeout` is closed, and at most `maxUnauthenticated` inbound connections
/// may be at that stage at once: a further one is closed as soon as it is accepted. When two connections to the
/// same peer exist, the one dialed by the peer with the lower ID survives (both sides decide the same way); a newer
/// connection from the same dialer replaces an older one.
///
/// Everything is bounded: one source address holds at most `maxUnauthenticatedPerAddress` of the unauthenticated
/// places; at most `maxSessions` sessions are up, and at most `sessionsPerAddress` of them dialed from one source
/// address (a new one evicts a session as `EvictionPolicy` says: never a preferred peer's nor one with a pairing
/// attempt in progress; first from its own address when that address holds its share, else from the address
/// holding the most); each session's inbound frames wait in a small buffer
/// and in `events` (or in the consumer `deliverPaymentFrames(to:)` names), and while those are full the session's
/// socket is not read (no frame is dropped); each
/// session's outbound queue holds at most `maxOutboundFrames` frames, and a peer that lets it fill is disconnected.
/// TLS sessions are never resumed (PROTOCOL.md §3.3): every inbound connection gets a fresh server context, so a
/// ticket or session ID from an earlier connection is unknown to it and a full handshake, with the peer's
/// certificate checked, always takes place.
public actor SessionManager {
    /// This daemon's identity.
    public nonisolated let identity: Identity
    /// Session events, for one consumer (the daemon).
    public nonisolated let events: SessionEvents

    /// Inbound connections ended so far (sessions, and handshakes that made none): what the daemon's memory trim
    /// looks at.
    public nonisolated var inboundConnectionsEnded: Int { endedInbound.load(ordering: .relaxed) }
    private nonisolated let endedInbound = Atomic<Int>(0)
    /// Set by `beginShutdown()`: from then on nothing is dialed, accepted or registered.
    private nonisolated let stopping = Atomic<Bool>(false)

    /// The protocol versions this side speaks (advertised in TXT `v`, negotiated in `hello`).
    public nonisolated var versions: ClosedRange<Int> { configuration.versions }

    /// The capabilities this side announces in its `hello`.
    public nonisolated var capabilities: [String] { configuration.capabilities }

    /// The display name this side announces in its `hello`.
    public nonisolated var displayName: String { configuration.displayName }

    private nonisolated let configuration: TransportConfiguration
    private nonisolated let logger: Logger
    private nonisolated let serverConfiguration: TLSConfiguration
    private nonisolated let clientContext: NIOSSLContext
    private nonisolated let codec: FrameCodec
    private nonisolated let unauthenticated: UnauthenticatedConnections
    private nonisolated let preference = Mutex<PeerPreference?>(nil)
    private nonisolated let paymentFrameSink = Mutex<(any PaymentFrameSink)?>(nil)
    /// The peers with a pairing attempt in progress (`setPairingInProgress(_:for:)`).
    private nonisolated let pairingPeers = Mutex<Set<PeerID>>([])
    /// Per dial target, the last key refused for not being the one expected (`refusedPeerID(forKey:)`).
    private nonisolated let refusedKeys = RefusedKeys()
    private let group: MultiThreadedEventLoopGroup

    private var server: NIOAsyncChannel<PendingConnection, Never>?
    /// The sessions that are up and the rules of who stays (the pure decider this actor drives).
    private var registry: SessionRegistry<SessionHandle> {
        // Mirrored for `session(with:)` and `send(_:on:)`, which the payment engine calls without awaiting the
        // actor, between a commit and the next.
        didSet { liveSessions.withLock { $0 = registry.sessions } }
    }
    private var sessions: [PeerID: SessionHandle] { registry.sessions }
    private nonisolated let liveSessions = Mutex<[PeerID: SessionHandle]>([:])
    /// Numbers each session (`SessionInfo.serial`).
    private nonisolated let serials = Atomic<UInt64>(0)
    /// The addresses to keep sessions with, and what each dial loop does next (the pure decider of the loops).
    private var targets = DialTargets()
    private var dialCommands: AsyncStream<String>.Continuation?
    /// The dial loops waiting for a peer's session to end (`waitForSessionEnd(of:)`), by peer and waiter number.
    private var sessionEndWaiters: [PeerID: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var nextWaiter = 0
    /// Dials in their connect, TLS and `hello` now (at most `maxConcurrentDials`), and the dial loops waiting for a
    /// place, in order, by waiter number.
    private var dialsInFlight = 0
    /// The most dials that were in their handshake at once since the start (never above `maxConcurrentDials`).
    private(set) var peakDialsInFlight = 0
    private var dialSlotWaiters: [(number: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    /// Discovered targets given up on (`maintainConnection(giveUpAfter:)`), since the start.
    private nonisolated let gaveUp = Atomic<Int>(0)

    /// Creates a manager; nothing listens or dials before `start()` and `run()`.
    public init(identity: Identity, configuration: TransportConfiguration, logger: Logger) throws(TransportError) {
        self.identity = identity
        self.configuration = configuration
        self.logger = logger
        self.registry = SessionRegistry(
            localPeer: identity.peerID, maxSessions: configuration.maxSessions,
            sessionsPerAddress: configuration.sessionsPerAddress)
        self.codec = FrameCodec(maxFrameSize: configuration.maxFrameSize)
        self.unauthenticated = UnauthenticatedConnections(
            limit: configuration.maxUnauthenticated,
            perAddressLimit: configuration.maxUnauthenticatedPerAddress
                ?? TransportConfiguration.defaultMaxUnauthenticatedPerAddress(of: configuration.maxUnauthenticated),
            openLimit: configuration.maxSessions + configuration.maxUnauthenticated + Self.closingAllowance)
        self.group = .singleton
        self.events = SessionEvents()
        self.serverConfiguration = .interPay(identity: identity, server: true)
        do {
            // Checks the server configuration once; each inbound connection then gets its own context.
            _ = try NIOSSLContext(configuration: serverConfiguration)
            self.clientContext = try NIOSSLContext(configuration: .interPay(identity: identity, server: false))
        } catch {
            throw .tlsSetup(String(describing: error))
        }
    }

    /// Tells the manager which peers to keep when sessions are at `maxSessions` (the daemon: paired peers). The
    /// predicate is asked when a session comes up, and again when `preferenceChanged(for:)` says its answer may have
    /// changed (not on a timer: at rest, a ledger read per session and keepalive was most of an idle daemon's work).
    public nonisolated func preferPeers(_ predicate: @escaping @Sendable (PeerID) async -> Bool) {
        let preference = PeerPreference(predicate)
        self.preference.withLock { $0 = preference }
    }

    /// Has each session's reader hand its payment frames to `sink` itself, waiting until `sink` returns, instead of
    /// queueing them in `events` for the consumer's task; `pair` frames and session events still go to `events`.
    ///
    /// The daemon's sink is the payment engine's bounded queue: a frame then reaches the ledger's thread without
    /// waking a consumer task first, and a reader that outruns the ledger waits there, so its socket is not read
    /// (nothing is dropped). Frames from one session reach `sink` in order; the `up` of a session is in `events`
    /// before its first frame is read, its `down` after its last. Call it before `run()`.
    public nonisolated func deliverPaymentFrames(to sink: any PaymentFrameSink) {
        paymentFrameSink.withLock { $0 = sink }
    }

    /// Asks the preference predicate again for `peer`'s session, if it has one (the daemon: after pairing with the
    /// peer or forgetting the pairing).
    public func preferenceChanged(for peer: PeerID) async {
        guard let session = sessions[peer] else { return }
        session.preferred = await isPreferred(peer)
    }

    /// Says whether a pairing attempt with `peer` is in progress (the daemon: from the local user's start until the
    /// attempt ends): while it is, the peer's session is never evicted, however many fresh keys arrive. Synchronous
    /// (the payment engine says so inside the step that starts the attempt, before any frame of it leaves); the
    /// registry takes the set before it decides anything (`updatePairingPeers()`).
    public nonisolated func setPairingInProgress(_ inProgress: Bool, for peer: PeerID) {
        pairingPeers.withLock { peers in
            if inProgress { peers.insert(peer) } else { peers.remove(peer) }
        }
    }

    /// Brings the registry's peers with a pairing attempt in progress up to date with what it was told since.
    private func updatePairingPeers() {
        let peers = pairingPeers.withLock { $0 }
        if peers != registry.pairing { registry.pairing = peers }
    }

    private nonisolated func isPreferred(_ peer: PeerID) async -> Bool {
        guard let preference = preference.withLock({ $0 }) else { return false }
        return await preference.predicate(peer)
    }

    // MARK: Listening

    /// Binds the listener and returns the port it got (useful with port 0).
    public func start() async throws(TransportError) -> Int {
        if let port = server?.channel.localAddress?.port { return port }
        do {
            let server = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.so_keepalive), value: 1)
                .bind(host: configuration.host, port: configuration.port) { channel in
                    self.configurePipeline(channel, expectedPeerID: nil)
                }
            self.server = server
            return server.channel.localAddress?.port ?? configuration.port
        } catch {
            throw .bindFailed(host: configuration.host, port: configuration.port, reason: String(describing: error))
        }
    }

    /// Serves inbound connections and dials the targets until the task is cancelled.
    public func run() async throws {
        _ = try await start()
        guard let server else { return }
        let (commands, commandContinuation) = AsyncStream.makeStream(of: String.self)
        dialCommands = commandContinuation
        for key in targets.targets.keys { commandContinuation.yield(key) }
        defer { events.finish() }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                await withDiscardingTaskGroup { dials in
                    for await key in commands {
                        dials.addTask { await self.maintain(key: key) }
                    }
                }
            }
            try await withTaskCancellationHandler {
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask {
                            await self.handle(connection, direction: .inbound, expected: nil)
                            self.endedInbound.add(1, ordering: .relaxed)
                        }
                    }
                }
            } onCancel: {
                commandContinuation.finish()
                server.channel.close(promise: nil)
            }
            commandContinuation.finish()
        }
    }

    // MARK: Dialing

    /// Keeps a session to `host:port` up while it is wanted, reconnecting with backoff.
    ///
    /// `expectedPeerID` is the ID discovery announced for that address: the peer's key must match it. Without it
    /// (a static peer) the first key seen is pinned for that address.
    ///
    /// With `giveUpAfter` (discovered addresses), the target is dropped after that many dials in a row without a
    /// session, if it never had one: an announcement pointing at a host that is not this peer (or at nothing) costs
    /// a few dials, not one every back-off interval for as long as it stays. Announcing it again dials it again.
    ///
    /// With `holdsBack` false, a higher ID dials at once instead of first giving the lower ID's dial a moment: for a
    /// discovered peer that leaves the first dial to us (`DiscoveredPeer.dialsFirst`).
    public func maintainConnection(
        key: String, host: String, port: Int, expectedPeerID: PeerID?, giveUpAfter: Int? = nil, holdsBack: Bool = true
    ) {
        guard !isStopping else { return }
        let wake = targets.maintain(
            key: key, host: host, port: port, expectedPeerID: expectedPeerID, giveUpAfter: giveUpAfter,
            holdsBack: holdsBack)
        wakeWaiters(of: wake)
        dialCommands?.yield(key)
    }

    /// Stops reconnecting to a target (an existing session stays until it ends).
    public func stopMaintaining(key: String) {
        wakeWaiters(of: targets.stop(key: key))
    }

    /// Pins the key of a target that expected none, as soon as its first session is up (not when it ends).
    private func pin(_ peerID: PeerID, forKey key: String) {
        targets.pin(peerID, forKey: key)
    }

    /// The peer ID a target without an expected ID pinned on first contact, if any.
    public func pinnedPeerID(forKey key: String) -> PeerID? {
        targets[key]?.pinnedPeerID
    }

    /// Forgets a target's pinned ID and expects `expectedPeerID` (nil: pin the next key seen), e.g. after
    /// `interpay untrust` of a static peer whose key changed.
    public func resetPin(forKey key: String, expectedPeerID: PeerID?) {
        guard let wake = targets.resetPin(forKey: key, expectedPeerID: expectedPeerID) else { return }
        wakeWaiters(of: wake)
        refusedKeys.state.withLock { $0[key] = nil }
        dialCommands?.yield(key)
    }

    /// The last key a target refused because it was not the expected one (a static peer whose key changed, an
    /// impostor at an announced address), until the target's pin is reset.
    public nonisolated func refusedPeerID(forKey key: String) -> PeerID? {
        refusedKeys.state.withLock { $0[key] }
    }

    /// Where `peer` listens (`host:port`) as a dial target (discovered or static) names it; nil when none does.
    public func listeningAddress(of peer: PeerID) -> String? {
        targets.listeningAddress(of: peer)
    }

    /// Sends a frame on the session with `peer`; false when there is no session.
    @discardableResult
    public func send(_ message: PaymentMessage, to peer: PeerID) -> Bool {
        guard let session = sessions[peer] else { return false }
        return session.enqueue(.message(message))
    }

    /// The session with `peer` now, if any; does not wait for the actor.
    public nonisolated func session(with peer: PeerID) -> SessionInfo? {
        liveSessions.withLock { $0[peer]?.info }
    }

    /// How long the peer of the session with `peer` has sent nothing (a live peer answers every keepalive ping);
    /// nil without a session. Does not wait for the actor.
    public nonisolated func silence(of peer: PeerID) -> Duration? {
        liveSessions.withLock { $0[peer] }?.silence
    }

    /// Queues already encoded frame bodies (`FrameCodec.encodeBody`) on the session `info`, in order, without
    /// waiting for the actor; false when that session is no longer the peer's or it refuses a frame (see
    /// `SessionHandle.enqueue`).
    @discardableResult
    public nonisolated func send(encoded bodies: [[UInt8]], on info: SessionInfo) -> Bool {
        guard let session = liveSessions.withLock({ $0[info.peerID] }), session.info == info else { return false }
        return session.enqueue(bodies.map(OutboundFrame.encoded))
    }

    /// The sessions that are up now.
    public func currentSessions() -> [SessionInfo] {
        sessions.values.map(\.info).sorted { $0.name < $1.name }
    }

    /// Starts the stop, in one direction: the listener closes, no target is dialed again, a connection accepted or
    /// dialed from now on is closed before any TLS work, and a handshake that ends now registers no session. The
    /// sessions that are up stay until `closeAll(reason:)`; `run()` ends when its task is cancelled.
    public func beginShutdown() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        dialCommands?.finish()
        server?.channel.close(promise: nil)
        targets.removeAll()
        for peer in Array(sessionEndWaiters.keys) { wakeWaiters(of: peer) }
        for waiter in dialSlotWaiters { waiter.continuation.resume(returning: false) }
        dialSlotWaiters.removeAll()
    }

    /// Discovered targets given up on after dials without a handshake (`maintainConnection(giveUpAfter:)`).
    public nonisolated var targetsGivenUp: Int { gaveUp.load(ordering: .relaxed) }

    /// Dial targets kept now (static peers and discovered addresses).
    public var targetCount: Int { targets.targets.count }

    /// Whether `beginShutdown()` was called.
    public nonisolated var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Waits until no session is up or `timeout` has passed (after `closeAll(reason:)`: the peers' close frames and
    /// our close_notify had their chance).
    public func waitForSessionsToEnd(within timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while !sessions.isEmpty, ContinuousClock.now < deadline, !Task.isCancelled {
            // Only cancellation ends the sleep early, and the loop's condition checks it.
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Closes every session, telling each peer why.
    public func closeAll(reason: String) {
        for session in sessions.values {
            session.enqueue(.message(.close(reason: reason)))
            session.finishOutbound()
        }
    }

    private func maintain(key: String) async {
        guard var loop = targets.loop(for: key) else { return }
        while !Task.isCancelled, !isStopping {
            switch targets.next(&loop, localPeer: identity.peerID, hasSession: { sessions[$0] != nil }) {
            case .stop:
                return
            case .waitForSessionEnd(let id):
                // Up through the peer's dial (ours would be running it): nothing to do until it ends.
                await waitForSessionEnd(of: id)
            case .holdBack(let id, let host):
                // The lower ID dials first; give its connection a moment to arrive before dialing too.
                try? await Task.sleep(for: .milliseconds(500))
                // A connection from the peer's address still in its handshake is most likely that dial: let it finish
                // (within the handshake deadline) rather than add a second handshake that the tie-break would throw
                // away. On a busy LAN of many peers each duplicate costs both sides a TLS handshake.
                let waitUntil = ContinuousClock.now + configuration.handshakeTimeout
                while sessions[id] == nil, unauthenticated.count(from: host) > 0, ContinuousClock.now < waitUntil,
                    !Task.isCancelled
                {
                    // Only cancellation ends the sleep early, and the loop's condition checks it.
                    try? await Task.sleep(for: .milliseconds(100))
                }
            case .dial(let target):
                guard await acquireDialSlot() else { return }
                let outcome = await dial(target, key: key)
                switch targets.dialed(&loop, target: target, outcome: outcome) {
                case .gaveUp(let attempts):
                    gaveUp.add(1, ordering: .relaxed)
                    logger.debug(
                        "no handshake with an announced address after \(attempts) dials; not dialing it again until it is announced again",
                        metadata: ["address": "\(target.host):\(target.port)"])
                    return
                case .backOff(let step):
                    // Only cancellation ends the back-off early, and the loop's condition checks it.
                    try? await Task.sleep(for: configuration.reconnectBackoff.delay(attempt: step))
                }
            }
        }
    }

    /// Returns once `peer` has no session (at once if it has none), or the task is cancelled. A session's end
    /// wakes the dial loops waiting for it; before, each loop polled every second, which with 50 peers kept an idle
    /// daemon busy.
    private func waitForSessionEnd(of peer: PeerID) async {
        guard sessions[peer] != nil, !Task.isCancelled else { return }
        nextWaiter += 1
        let waiter = nextWaiter
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                sessionEndWaiters[peer, default: [:]][waiter] = continuation
            }
        } onCancel: {
            // Runs on the actor after the continuation above is stored (this method holds the actor until then).
            Task { await self.wakeWaiter(waiter, of: peer) }
        }
    }

    private func wakeWaiter(_ waiter: Int, of peer: PeerID) {
        sessionEndWaiters[peer]?.removeValue(forKey: waiter)?.resume()
        if sessionEndWaiters[peer]?.isEmpty == true { sessionEndWaiters.removeValue(forKey: peer) }
    }

    /// Wakes the dial loops waiting for `peer`'s session to end: it ended, or their target changed or went (a loop
    /// of an old generation then ends, so that they cannot pile up while a session lasts).
    private func wakeWaiters(of peer: PeerID?) {
        guard let peer, let waiters = sessionEndWaiters.removeValue(forKey: peer) else { return }
        for continuation in waiters.values { continuation.resume() }
    }

    /// Waits for one of the `maxConcurrentDials` places; false (no place taken) when stopping or cancelled.
    private func acquireDialSlot() async -> Bool {
        guard !isStopping, !Task.isCancelled else { return false }
        if dialsInFlight < configuration.maxConcurrentDials, dialSlotWaiters.isEmpty {
            dialsInFlight += 1
            peakDialsInFlight = max(peakDialsInFlight, dialsInFlight)
            return true
        }
        nextWaiter += 1
        let number = nextWaiter
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                dialSlotWaiters.append((number, continuation))
            }
        } onCancel: {
            // Runs on the actor after the continuation above is stored (this method holds the actor until then).
            Task { await self.cancelDialSlotWait(number) }
        }
    }

    /// A dial's handshake ended: its place goes to the next waiting loop, if any.
    private func releaseDialSlot() {
        if dialSlotWaiters.isEmpty {
            dialsInFlight = max(0, dialsInFlight - 1)
        } else {
            dialSlotWaiters.removeFirst().continuation.resume(returning: true)
        }
    }

    private func cancelDialSlotWait(_ number: Int) {
        guard let index = dialSlotWaiters.firstIndex(where: { $0.number == number }) else { return }
        dialSlotWaiters.remove(at: index).continuation.resume(returning: false)
    }

    /// How a dial ended (`interpay_dials_total{result}`): it became a session, or not.
    private enum DialResult: String {
        case session, failed
    }

    private static func countDial(_ result: DialResult) {
        InterPayMetric.dials.counter([("result", result.rawValue)]).increment()
    }

    /// How many targets are dialed and kept (discovered and static), for the metrics.
    public func dialTargetCount() -> Int { targets.targets.count }

    /// Dials once and runs the session until it ends.
    private func dial(_ target: DialTarget, key: String) async -> DialTargets.Outcome {
        let address = "\(target.host):\(target.port)"
        logger.trace("dialing", metadata: ["address": "\(address)"])
        do {
            let connection = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(5))
                .channelOption(.socketOption(.so_keepalive), value: 1)
                .connect(host: target.host, port: target.port) { channel in
                    self.configurePipeline(
                        channel, expectedPeerID: target.expectedPeerID, dialKey: key, dialAddress: address)
                }
            if let peerID = await handle(
                connection, direction: .outbound, expected: target.expectedPeerID, dialKey: key,
                handshakeEnded: { await self.releaseDialSlot() })
            {
                Self.countDial(.session)
                return .session(peerID)
            }
            Self.countDial(.failed)
            return .failed
        } catch {
            Self.countDial(.failed)
            releaseDialSlot()
            logger.debug("dial failed", metadata: ["address": "\(address)", "error": "\(error)"])
            return .failed
        }
    }

    // MARK: Connections

    /// A connection before its handshake, with the timer that closes it if the handshake is too slow and, for an
    /// inbound one, its place among the unauthenticated connections.
    struct PendingConnection: Sendable {
        /// Guarded: NIO drops connections accepted while the listener closes (`GuardedAsyncChannel`).
        let channel: GuardedAsyncChannel<InboundFrame, OutboundFrame>
        let deadline: Scheduled<Void>
        let slot: UnauthenticatedConnections.Slot?
    }

    /// Sets up TLS, framing and the handshake deadline on a new channel (runs on its event loop). `dialAddress` is
    /// the `host:port` an outbound connection dials: its channel has no remote address yet when this runs (it is
    /// not connected), and the deadline's log line must still say which peer did not answer.
    private nonisolated func configurePipeline(
        _ channel: any Channel, expectedPeerID: PeerID?, dialKey: String? = nil, dialAddress: String? = nil
    )
        -> EventLoopFuture<PendingConnection>
    {
        let inbound = expectedPeerID == nil && channel.parent != nil
        if isStopping {
            // Accepted or dialed while the daemon stops: closed before TLS, without a word in the log.
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(TransportError.handshakeFailed("shutting down"))
        }
        var slot: UnauthenticatedConnections.Slot?
        if inbound {
            let source = channel.remoteAddress?.ipAddress ?? "?"
            let admitted: UnauthenticatedConnections.Slot
            switch unauthenticated.admit(from: source) {
            case .success(let place):
                admitted = place
            case .failure(let refusal):
                // Closed before any TLS work. NIO does not close a channel whose initializer failed: we do.
                channel.close(promise: nil)
                let (event, limit, what) =
                    switch refusal {
                    case .full:
                        (UnauthenticatedConnections.Event.refused, unauthenticated.limit, "unauthenticated connections")
                    case .open:
                        (
                            .refusedOpen, unauthenticated.openLimit,
                            "open connections (sessions, handshakes and closing connections)"
                        )
                    case .addressFull:
                        (
                            .refusedForAddress, unauthenticated.perAddressLimit,
                            "unauthenticated connections from one address"
                        )
                    }
                if let suppressed = unauthenticated.shouldLog(event) {
                    logger.notice(
                        "too many \(what); connection closed",
                        metadata: ["address": "\(source)", "limit": "\(limit)", "suppressed": "\(suppressed)"])
                }
                return channel.eventLoop.makeFailedFuture(
                    TransportError.handshakeFailed("more than \(limit) \(what)"))
            }
            slot = admitted
            channel.closeFuture.whenComplete { _ in admitted.closed() }
        }
        return channel.eventLoop.makeCompletedFuture { [slot] in
            let refusedKeys = self.refusedKeys
            let address = channel.remoteAddress?.ipAddress ?? dialAddress ?? "?"
            let verify = PeerVerifier(expected: expectedPeerID, address: address, logger: logger) { actual in
                if let dialKey { refusedKeys.state.withLock { $0[dialKey] = actual } }
            }
            // A fresh server context per connection: its session cache and ticket key are its own, so no earlier
            // connection's session can be resumed (PROTOCOL.md §3.3).
            let tls: any ChannelHandler =
                inbound
                ? NIOSSLServerHandler(
                    context: try NIOSSLContext(configuration: serverConfiguration),
                    customVerificationCallback: verify.callback)
                : try NIOSSLClientHandler(
                    context: clientContext, serverHostname: nil, customVerificationCallback: verify.callback)
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(tls)
            try sync.addHandler(ByteToMessageHandler(FrameDecoder(codec: codec)))
            try sync.addHandler(MessageToByteHandler(FrameEncoder(codec: codec)))
            let unauthenticated = self.unauthenticated
            let timeout = configuration.handshakeTimeout
            let deadline = channel.eventLoop.scheduleTask(in: .init(timeout)) { [logger] in
                if let suppressed = unauthenticated.shouldLog(.timedOut) {
                    var metadata: Logger.Metadata = [
                        "address": "\(Self.describe(channel.remoteAddress) ?? dialAddress ?? "?")",
                        "direction": "\(inbound ? "inbound" : "outbound")", "timeout": "\(timeout)",
                        "suppressed": "\(suppressed)",
                    ]
                    if let expectedPeerID { metadata["peer"] = "\(expectedPeerID.shortDescription)" }
                    logger.notice("handshake deadline passed; connection closed", metadata: metadata)
                }
                channel.close(promise: nil)
            }
            // A connection that ends before its deadline (a failed handshake) needs no timer any more.
            channel.closeFuture.whenComplete { _ in deadline.cancel() }
            let asyncChannel = try NIOAsyncChannel<InboundFrame, OutboundFrame>(
                wrappingChannelSynchronously: channel,
                configuration: .init(backPressureStrategy: Self.inboundBackPressure))
            return PendingConnection(channel: GuardedAsyncChannel(asyncChannel), deadline: deadline, slot: slot)
        }
    }

    /// Inbound connections that may be closing (waiting for the peer's close_notify) beyond the sessions and the
    /// unauthenticated connections; a connection accepted beyond that sum is closed at once.
    static let closingAllowance = 64

    /// A session's inbound buffer: the socket is not read while `highWatermark` decoded frames wait for the read
    /// loop, and is read again once fewer than `lowWatermark` do.
    static let inboundBackPressure = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
        lowWatermark: 4, highWatermark: 16)

    /// Runs one connection: handshake, then the session until it ends. Returns the peer ID if a session came up.
    @discardableResult
    private nonisolated func handle(
        _ pending: PendingConnection, direction: SessionInfo.Direction, expected: PeerID?, dialKey: String? = nil,
        handshakeEnded: (@Sendable () async -> Void)? = nil
    ) async
        -> PeerID?
    {
        // Called once, when the handshake ended either way (a dial's slot is released then, not with the session).
        var handshakeDone = false
        func endHandshake() async {
            guard let handshakeEnded, !handshakeDone else { return }
            handshakeDone = true
            await handshakeEnded()
        }
        guard let asyncChannel = pending.channel.take() else {
            await endHandshake()
            return nil
        }
        let channel = asyncChannel.channel
        let remote = Self.describe(channel.remoteAddress) ?? "?"
        var establishedPeer: PeerID?
        // Why the connection ends before a session, should it (`InterPayMetric.handshakeRefusals`): the stage it
        // reached, refined by the error.
        var refusal = HandshakeRefusal.hello
        do {
            try await asyncChannel.executeThenClose { inbound, outbound in
                var frames = inbound.makeAsyncIterator()
                let ours = PaymentMessage.Hello(
                    minVersion: configuration.versions.lowerBound, maxVersion: configuration.versions.upperBound,
                    name: configuration.displayName, capabilities: configuration.capabilities,
                    agent: configuration.agent)
                try await outbound.write(.message(.hello(ours)))
                let received: InboundFrame?
                do {
                    received = try await frames.next()
                } catch let error as FrameError {
                    // An oversize prefix instead of hello: say why before closing (PROTOCOL.md §13.2).
                    if let suppressed = unauthenticated.shouldLog(.oversize) {
                        logger.notice(
                            "oversize frame before hello; connection closed",
                            metadata: ["address": "\(remote)", "error": "\(error)", "suppressed": "\(suppressed)"])
                    }
                    // Best effort: the connection closes whether or not the peer gets the reason.
                    try? await outbound.write(
                        .message(.error(.init(code: .limitExceeded, message: String(error.description.prefix(200))))))
                    throw TransportError.handshakeFailed(error.description)
                }
                guard let first = received else {
                    throw TransportError.handshakeFailed("connection closed before hello")
                }
                guard case .message(.hello(let theirs)) = first else {
                    // A hello that does not decode (a name that reads as a peer ID, a control character) is answered
                    // with its own error, so that the peer learns which field was refused.
                    let answer: PaymentMessage =
                        if case .undecodable(let frame) = first, frame.header.type == "hello", let own = frame.answer {
                            own
                        } else {
                            .error(.init(code: .malformedFrame, message: "expected hello"))
                        }
                    // The connection closes next whatever happens to this write; its failure changes nothing.
                    try? await outbound.write(.message(answer))
                    throw TransportError.handshakeFailed("first frame was not hello")
                }
                refusal = .version
                guard let version = ours.negotiatedVersion(with: theirs) else {
                    // Best effort: the connection closes whether or not the peer gets the reason.
                    try? await outbound.write(
                        .message(.error(.init(code: .unsupportedVersion, message: "no common protocol version"))))
                    throw TransportError.noCommonVersion(
                        ours: configuration.versions, theirs: theirs.minVersion...theirs.maxVersion)
                }
                refusal = .mismatch
                let peerID = try await Self.peerID(of: channel)
                if let expected, expected != peerID {
                    throw TransportError.peerIDMismatch(expected: expected, actual: peerID)
                }
                refusal = .other
                guard peerID != identity.peerID else { throw TransportError.connectedToSelf }
                // Pinned before the session is announced, so that whoever hears of it can read the pin.
                if let dialKey, expected == nil { await pin(peerID, forKey: dialKey) }
                pending.deadline.cancel()
                pending.slot?.release()

                let info = SessionInfo(
                    peerID: peerID, name: theirs.name, version: version, remoteAddress: remote,
                    direction: direction, since: Date(), capabilities: theirs.capabilities,
                    serial: serials.add(1, ordering: .relaxed).newValue)
                let dialer = direction == .outbound ? identity.peerID : peerID
                let session = SessionHandle(
                    info: info, dialer: dialer, channel: channel, outboundCapacity: configuration.maxOutboundFrames,
                    preferred: await isPreferred(peerID), logger: logger)
                await confirmEvictionCandidate(for: info)
                switch await register(session) {
                case .registered:
                    break
                case .duplicate:
                    logger.debug("duplicate connection closed", metadata: ["peer": "\(peerID.shortDescription)"])
                    return
                case .full:
                    refusal = .full
                    try? await outbound.write(.message(.close(reason: "too many sessions")))  // Closing anyway.
                    throw TransportError.handshakeFailed("\(configuration.maxSessions) sessions up, none to evict")
                case .stopping:
                    try? await outbound.write(.message(.close(reason: "shutting down")))  // Closing anyway.
                    throw TransportError.handshakeFailed("shutting down")
                case .addressFull:
                    refusal = .full
                    // Closing anyway.
                    try? await outbound.write(.message(.close(reason: "too many sessions from this address")))
                    throw TransportError.handshakeFailed(
                        "\(configuration.sessionsPerAddress) sessions from \(info.host) up, none to evict")
                }
                establishedPeer = peerID
                InterPayMetric.handshakes.counter().increment()
                await endHandshake()
                let reason = await runSession(session, frames: &frames, outbound: outbound)
                if await unregister(session) {
                    logger.info(
                        "session down",
                        metadata: ["peer": "\(info.name)", "id": "\(peerID.shortDescription)", "reason": "\(reason)"])
                    events.yield(.down(info, reason: reason))
                }
            }
        } catch {
            await endHandshake()
            // Stopping: the handshakes cut short say nothing per peer.
            if isStopping { return establishedPeer }
            let reason = (error as? TransportError)?.description ?? String(describing: error)
            if case TransportError.peerIDMismatch = error {
                logger.warning("peer refused: \(reason)", metadata: ["address": "\(remote)"])
            } else {
                logger.debug(
                    "connection ended before a session", metadata: ["address": "\(remote)", "reason": "\(reason)"])
            }
            if establishedPeer == nil {
                events.yield(.refused(remoteAddress: remote, reason: reason))
                switch error {
                case is NIOSSLError, is BoringSSLError, TransportError.noPeerCertificate: HandshakeRefusal.tls.count()
                default: refusal.count()
                }
            }
        }
        await endHandshake()
        return establishedPeer
    }

    /// The session's read loop, with its writer and keepalive alongside. Returns why it ended.
    private nonisolated func runSession(
        _ session: SessionHandle, frames: inout NIOAsyncChannelInboundStream<InboundFrame>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<OutboundFrame>
    ) async -> String {
        let interval = configuration.keepaliveInterval
        let peer = session.info.peerID
        return await withTaskGroup(of: SessionTask.self) { group in
            group.addTask {
                // Frames are written by whoever queues them (`SessionHandle.enqueue`); once nothing more is to be
                // sent (closeAll, or the session ended) and what was queued is written, close our side.
                await session.outboundDone()
                outbound.finish()
                return .writer
            }
            group.addTask {
                var nonce: UInt64 = 0
                while !Task.isCancelled {
                    // Only cancellation ends the sleep early, and the loop's condition checks it.
                    try? await Task.sleep(for: interval)
                    // A stalled writer first: a peer that neither reads nor sends is best described as not reading.
                    if session.closeIfStalled() { return .keepalive }
                    if session.silence > interval * 3 {
                        session.endReason = "peer silent for \(session.silence)"
                        session.abort()
                        return .keepalive
                    }
                    nonce += 1
                    session.enqueue(.message(.ping(nonce: nonce)))
                }
                return .keepalive
            }
            let reason: String
            do {
                reason = try await readLoop(session, frames: &frames)
            } catch let error as FrameError {
                Limit.frameBytes.hit()
                logger.notice(
                    "frame over the size limit; session closed",
                    metadata: [
                        "peer": "\(peer.shortDescription)", "address": "\(session.info.remoteAddress)",
                        "error": "\(error)",
                    ])
                session.enqueue(
                    .message(.error(.init(code: .limitExceeded, message: String(error.description.prefix(200))))))
                reason = error.description
            } catch {
                reason = session.endReason ?? String(describing: error)
            }
            // Let what is queued be written (an error that explains the end comes last), bounded: a peer that
            // reads nothing must not keep the session open.
            session.finishOutbound()
            group.addTask {
                // Only cancellation ends the sleep early; the next line tells the two apart.
                try? await Task.sleep(for: Self.drainTimeout)
                // Cancelled: the queue is written, and closing now could drop what the socket took but has not sent.
                if !Task.isCancelled { session.channel.close(promise: nil) }
                return .drainTimer
            }
            while let finished = await group.next(), finished == .keepalive {}
            group.cancelAll()
            return reason
        }
    }

    /// The tasks that run beside a session's read loop.
    private enum SessionTask: Sendable {
        case writer, keepalive, drainTimer
    }

    /// How long the frames queued when a session ends may take to be written.
    private static let drainTimeout: Duration = .seconds(2)

    private nonisolated func readLoop(
        _ session: SessionHandle, frames: inout NIOAsyncChannelInboundStream<InboundFrame>.AsyncIterator
    ) async throws -> String {
        let peer = session.info.peerID
        let sink = paymentFrameSink.withLock { $0 }
        while let frame = try await frames.next() {
            if case .message(.ping) = frame {
                session.markInbound()
            } else if case .message(.pong) = frame {
                session.markInbound()
            } else {
                session.markInbound(used: true)
            }
            switch frame {
            case .message(.ping(let nonce)):
                session.enqueue(.message(.pong(nonce: nonce)))
            case .message(.pong):
                break
            case .message(.close(let reason)):
                return "peer closed: \(reason)"
            case .message(.hello):
                session.enqueue(.message(.error(.init(code: .malformedFrame, message: "hello after the handshake"))))
                return "second hello"
            case .message(let message):
                // Waits while the daemon has `events.frameCapacity` frames (or its sink a full queue) to process:
                // this session's socket is then not read, and the peer slows down instead of losing frames.
                session.holdReads(true)
                if case .pair = message {
                    await events.send(.message(message, from: peer))
                } else if let sink {
                    await sink.take(message, from: peer)
                } else {
                    await events.send(.message(message, from: peer))
                }
                session.holdReads(false)
            case .undecodable(let frame):
                // `code` is one of FrameError's fixed codes: a bounded label.
                InterPayMetric.undecodableFrames.counter([("error", frame.error.code)]).increment()
                logger.notice(
                    "undecodable frame",
                    metadata: [
                        "peer": "\(peer.shortDescription)", "address": "\(session.info.remoteAddress)",
                        "type": "\(frame.header.type ?? "?")", "error": "\(frame.error)",
                    ])
                if let answer = frame.answer { session.enqueue(.message(answer)) }
            }
        }
        return session.endReason ?? "connection closed"
    }

    /// What `register(_:)` did with a new session.
    private enum Registration {
        case registered
        /// Another connection to the same peer wins.
        case duplicate
        /// `maxSessions` are up and none may be evicted for this one.
        case full
        /// The new session's address holds `sessionsPerAddress` sessions and none of them may be evicted.
        case addressFull
        /// `beginShutdown()` was called.
        case stopping
    }

    private func register(_ session: SessionHandle) -> Registration {
        let peer = session.info.peerID
        // Stopping: a handshake that ends now brings no session up (the caller closes it, as for a full table).
        if isStopping { return .stopping }
        updatePairingPeers()
        switch registry.register(session) {
        case .duplicate:
            return .duplicate
        case .replaced(let existing):
            existing.endReason = "replaced by a newer connection"
            existing.channel.close(promise: nil)
            logger.debug("session replaced", metadata: ["peer": "\(peer.shortDescription)"])
            // Frames queued on the old session are gone with it: `up` again makes the daemon resend what the peer
            // has not acknowledged.
            events.yield(.up(session.info))
            return .registered
        case .full(let bound):
            let (event, what) =
                bound == .address
                ? (UnauthenticatedConnections.Event.addressSessionLimit, "session limit of one address")
                : (.sessionLimit, "session limit")
            if let suppressed = unauthenticated.shouldLog(event) {
                logger.notice(
                    "\(what) reached and no session to evict; connection closed",
                    metadata: [
                        "peer": "\(peer.shortDescription)", "address": "\(session.info.remoteAddress)",
                        "limit": "\(limit(of: bound))", "suppressed": "\(suppressed)",
                    ])
            }
            return bound == .address ? .addressFull : .full
        case .evicted(let victim, let bound):
            evicted(victim, at: bound, for: session)
        case .registered:
            break
        }
        logger.info(
            "session up",
            metadata: [
                "peer": "\(session.info.name)", "id": "\(peer.shortDescription)",
                "address": "\(session.info.remoteAddress)", "direction": "\(session.info.direction.rawValue)",
            ])
        events.yield(.up(session.info))
        return .registered
    }

    /// The number of sessions `bound` allows.
    private func limit(of bound: SessionRegistry<SessionHandle>.Bound) -> Int {
        bound == .address ? configuration.sessionsPerAddress : configuration.maxSessions
    }

    /// Closes a session the registry evicted at `bound` to make room for `newcomer`, and reports it.
    private func evicted(
        _ victim: SessionHandle, at bound: SessionRegistry<SessionHandle>.Bound, for newcomer: SessionHandle
    ) {
        wakeWaiters(of: victim.info.peerID)
        let limit = limit(of: bound)
        victim.endReason =
            bound == .address
            ? "evicted: \(limit) sessions up from \(victim.info.host)" : "evicted: \(limit) sessions up"
        victim.finishOutbound()
        victim.channel.close(promise: nil)
        let (event, what) =
            bound == .address
            ? (UnauthenticatedConnections.Event.evictedForAddress, "session limit of one address")
            : (.evicted, "session limit")
        if let suppressed = unauthenticated.shouldLog(event) {
            logger.notice(
                "\(what) reached; idlest session evicted",
                metadata: [
                    "peer": "\(victim.info.name)", "id": "\(victim.info.peerID.shortDescription)",
                    "address": "\(victim.info.host)", "for": "\(newcomer.info.peerID.shortDescription)",
                    "limit": "\(limit)", "suppressed": "\(suppressed)",
                ])
        }
        // Removed from the registry here, so its read loop's end does not report it: report it now.
        events.yield(.down(victim.info, reason: "evicted"))
    }

    /// The session a new one `info` would evict, if it meets a bound (`SessionRegistry.evictionCandidate`).
    private func evictionCandidate(for info: SessionInfo) -> SessionHandle? {
        updatePairingPeers()
        return registry.evictionCandidate(peer: info.peerID, host: info.host, isInbound: info.direction == .inbound)
    }

    /// Asks the predicate again about the session a new one `info` would evict, since its cached answer may
    /// predate a pairing: until the candidate is confirmed as not preferred (or there is none), so that a peer
    /// paired since its last keepalive is not evicted.
    private nonisolated func confirmEvictionCandidate(for info: SessionInfo) async {
        for _ in 0..<configuration.maxSessions {
            guard let candidate = await evictionCandidate(for: info) else { return }
            let preferred = await isPreferred(candidate.info.peerID)
            candidate.preferred = preferred
            if !preferred { return }
        }
    }

    /// Removes a session; true if it was the current one for its peer.
    private func unregister(_ session: SessionHandle) -> Bool {
        guard registry.unregister(session) else { return false }
        wakeWaiters(of: session.info.peerID)
        return true
    }

    /// `ip:port` of a socket address; nil when there is none (a channel not connected yet).
    private static func describe(_ address: SocketAddress?) -> String? {
        address.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
    }

    /// The peer ID proven by the TLS handshake.
    private static func peerID(of channel: any Channel) async throws -> PeerID {
        guard let certificate = try await channel.nioSSL_peerCertificate().get() else {
            throw TransportError.noPeerCertificate
        }
        return try PeerID(certificate: certificate)
    }
}

/// Per dial target, the last key refused for not being the expected one; shared with the connections' verifiers.
final class RefusedKeys: Sendable {
    let state = Mutex<[String: PeerID]>([:])
}

/// The predicate of `SessionManager.preferPeers(_:)`, held as one object: read under the lock, it is a reference
/// copied, not a function value passed through the lock's generic closure, which re-wrapped it in a new thunk
/// context on every read (one allocation per session that came up).
private final class PeerPreference: Sendable {
    let predicate: @Sendable (PeerID) async -> Bool

    init(_ predicate: @escaping @Sendable (PeerID) async -> Bool) { self.predicate = predicate }
}
