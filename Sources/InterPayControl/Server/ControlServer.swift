import Glibc
import InterPayChannels
public import InterPayContract
import InterPayControlClient
public import Logging
import NIOCore
import NIOPosix

/// Serves the control socket: JSON-RPC 2.0, one JSON object per line, for the local CLI.
///
/// The socket is a Unix domain socket. Its directory is created `0700` if missing (`0750` with a group), the socket
/// is `0600` (`0660` and the group's). Every connection is checked with `SO_PEERCRED`: the daemon's own user, root,
/// and (when configured) the group's members by primary gid are allowed; anyone else gets one `forbidden` error and
/// is disconnected. Requests on one connection are answered in order. The built-in method `subscribe` answers
/// `{"subscribed":true}` and then streams every value of `ControlHandler.events()` as
/// `{"jsonrpc":"2.0","method":"event","params":…}` until the client goes away.
///
/// `start()` binds (failing if another daemon is listening, replacing a stale socket); `run()` serves until its task
/// is cancelled and then removes the socket file.
public actor ControlServer {
    /// The configuration the server was made with.
    public nonisolated let configuration: ControlServerConfiguration

    private nonisolated let handler: any ControlHandler
    private nonisolated let logger: Logger
    /// The effective uid of this process; peers with the same uid are allowed.
    private nonisolated let daemonUID: UInt32

    /// The listener, while bound.
    private var server: NIOAsyncChannel<Connection, Never>?
    private var socketIdentity: ControlSocketFile.Identity?

    /// A server for `configuration` that answers with `handler`; nothing listens before `start()` or `run()`.
    public init(configuration: ControlServerConfiguration, handler: any ControlHandler, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
        self.daemonUID = geteuid()
    }

    /// The socket path.
    public nonisolated var path: String { configuration.path }

    // MARK: Listening

    /// Creates the directory if needed, checks the path, binds the socket and sets its permissions.
    ///
    /// Throws `alreadyRunning` when something accepts connections on the path; a socket file nobody listens on is
    /// removed and replaced. Calling it again once bound does nothing.
    public func start() async throws(ControlServerError) {
        if server != nil { return }
        let path = configuration.path
        guard path.utf8.count <= UnixSocketAddress.maxPathLength else {
            throw .pathTooLong(path: path, limit: UnixSocketAddress.maxPathLength)
        }
        let permissions = configuration.effectivePermissions
        let groupID = configuration.groupID
        try ControlSocketFile.prepareDirectory(for: path, mode: permissions.directoryMode, groupID: groupID)
        switch try ControlSocketFile.probe(path) {
        case .absent:
            break
        case .live:
            throw .alreadyRunning(path: path)
        case .notASocket:
            throw .notASocket(path: path)
        case .stale:
            logger.notice("removing a stale control socket", metadata: ["path": "\(path)"])
            try ControlSocketFile.removeStale(path)
        }

        let bound: NIOAsyncChannel<Connection, Never>
        // bind(2) creates the socket file with the mode the umask leaves; with 0177 it is born 0600 and only then
        // opened up to its configured mode, so it never exists with a looser one. The umask is per process: other
        // threads creating files meanwhile get a stricter mode at worst.
        let previousMask = umask(0o177)
        defer { umask(previousMask) }
        do {
            bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .bind(unixDomainSocketPath: path) { channel in
                    self.configurePipeline(channel)
                }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            // Someone bound the path between our probe and our bind.
            throw .alreadyRunning(path: path)
        } catch {
            throw .bindFailed(path: path, reason: String(describing: error))
        }
        let identity = ControlSocketFile.identity(of: path)
        do {
            try ControlSocketFile.applyPermissions(path, mode: permissions.socketMode, groupID: groupID)
        } catch {
            // The permission error is what the caller must see; a channel that fails to close is already gone.
            try? await bound.channel.close()
            ControlSocketFile.remove(path, ifStill: identity)
            throw error
        }
        server = bound
        socketIdentity = identity
        logger.info("control socket listening", metadata: ["path": "\(path)"])
    }

    /// Binds if needed, then serves connections until the task is cancelled; removes the socket file on the way out.
    public func run() async throws {
        try await start()
        guard let server else { return }
        let identity = socketIdentity
        defer {
            ControlSocketFile.remove(configuration.path, ifStill: identity)
            self.server = nil
            self.socketIdentity = nil
            logger.info("control socket closed", metadata: ["path": "\(configuration.path)"])
        }
        var failure: (any Error)?
        do {
            try await withThrowingDiscardingTaskGroup { group in
                try await withTaskCancellationHandler {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                } onCancel: {
                    server.channel.close(promise: nil)
                }
            }
        } catch {
            // Closing the listener on cancellation may surface as an error; that is a normal stop.
            if !Task.isCancelled { failure = error }
        }
        // Connections accepted while the listener closed never reached the loop above: NIO dropped them, and their
        // guards (`GuardedAsyncChannel`) closed them.
        if let failure { throw failure }
    }

    // MARK: Connections

    /// An accepted connection and who is on the other end.
    struct Connection: Sendable {
        /// Guarded: NIO drops connections accepted while the listener closes (`GuardedAsyncChannel`).
        let channel: GuardedAsyncChannel<ControlLine, ByteBuffer>
        /// nil when the kernel would not tell.
        let peer: PeerCredentials?
    }

    /// Reads the peer's credentials and sets up line framing (runs on the connection's event loop).
    private nonisolated func configurePipeline(_ channel: any Channel) -> EventLoopFuture<Connection> {
        let maxLineLength = configuration.maxLineLength
        return PeerCredentials.of(channel)
            .map { Optional($0) }
            .recover { _ in nil }
            .flatMapThrowing { peer in
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(ControlLineDecoder(maxLength: maxLineLength)))
                let asyncChannel = try NIOAsyncChannel<ControlLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                return Connection(channel: GuardedAsyncChannel(asyncChannel), peer: peer)
            }
    }

    /// Whether a peer may use the socket: our own user, root, or a member (primary or supplementary) of the
    /// configured group.
    nonisolated func isAllowed(_ peer: PeerCredentials) -> Bool {
        if peer.uid == daemonUID || peer.uid == 0 { return true }
        guard let groupID = configuration.groupID else { return false }
        return peer.gid == groupID || peer.groups.contains(groupID)
    }

    /// Runs one connection to its end; never throws.
    private nonisolated func serve(_ connection: Connection) async {
        let peerMetadata: Logger.MetadataValue = "\(connection.peer.map(\.description) ?? "unknown")"
        guard let channel = connection.channel.take() else { return }
        do {
            try await channel.executeThenClose { inbound, outbound in
                guard let peer = connection.peer, isAllowed(peer) else {
                    let message =
                        connection.peer.map { "permission denied: uid \($0.uid) is not allowed" }
                        ?? "permission denied: cannot read the peer's credentials"
                    logger.warning("control connection refused: \(message)", metadata: ["peer": peerMetadata])
                    try await outbound.write(Self.line(RPCResponse(id: nil, error: .forbidden(message)).jsonValue))
                    return
                }
                logger.debug("control connection", metadata: ["peer": peerMetadata])
                try await converse(inbound: inbound, outbound: outbound, peer: peerMetadata)
            }
        } catch {
            logger.debug("control connection ended", metadata: ["peer": peerMetadata, "error": "\(error)"])
        }
    }

    /// Reads requests and answers them in order; a subscription streams events alongside until the input ends.
    private nonisolated func converse(
        inbound: NIOAsyncChannelInboundStream<ControlLine>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        peer: Logger.MetadataValue
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Whatever way the loop ends (input closed, error, cancellation), the event stream goes with it.
            defer { group.cancelAll() }
            var subscribed = false
            for try await line in inbound {
                switch line {
                case .tooLong(let limit):
                    configuration.onLineTooLong()
                    logger.notice("control request line too long", metadata: ["peer": peer, "limit": "\(limit)"])
                    let error = RPCError.invalidRequest("request line longer than \(limit) bytes")
                    try await outbound.write(Self.line(RPCResponse(id: nil, error: error).jsonValue))
                    return
                case .line(let bytes):
                    switch await action(for: bytes, subscribed: subscribed) {
                    case .none:
                        break
                    case .reply(let response):
                        try await outbound.write(Self.line(response.jsonValue))
                    case .result(let id, let result):
                        try await outbound.write(Self.line(id: id, result: result))
                    case .subscribe(let id):
                        // Take the stream before acknowledging, so that no event after the ack is missed.
                        let events = handler.events()
                        if let id {
                            let ack = RPCResponse(id: id, result: ["subscribed": true])
                            try await outbound.write(Self.line(ack.jsonValue))
                        }
                        subscribed = true
                        logger.debug("control subscription", metadata: ["peer": peer])
                        group.addTask {
                            for await event in events {
                                let notification = RPCRequest(id: nil, method: "event", params: event)
                                try await outbound.write(Self.line(notification.jsonValue))
                            }
                        }
                    }
                }
            }
        }
    }

    /// What to do with one request line.
    private enum Action {
        /// Nothing to send (a blank line or a notification).
        case none
        case reply(RPCResponse)
        /// Answer the request `id` with its result's text.
        case result(RPCID, EncodedJSON)
        /// Start streaming events; acknowledge when the request has an id.
        case subscribe(RPCID?)
    }

    private nonisolated func action(for bytes: ByteBuffer, subscribed: Bool) async -> Action {
        let request: RPCRequest
        switch ControlRequestLine(parsing: bytes.readableBytesView) {
        case .blank: return .none
        case .invalid(let response): return .reply(response)
        case .request(let parsed): request = parsed
        }
        if request.method == "subscribe" {
            guard subscribed else { return .subscribe(request.id) }
            guard let id = request.id else { return .none }
            return .reply(RPCResponse(id: id, error: .conflict("this connection is already subscribed")))
        }
        let outcome: Result<EncodedJSON, RPCError>
        do {
            outcome = .success(try await handler.handle(method: request.method, params: request.params))
        } catch {
            outcome = .failure(error)
        }
        guard let id = request.id else { return .none }
        switch outcome {
        case .success(let result): return .result(id, result)
        case .failure(let error): return .reply(RPCResponse(id: id, error: error))
        }
    }

    /// A success response as one newline-terminated line, the result's text copied in as the handler encoded it:
    /// the members in the order `JSONValue` writes them (sorted), the bytes `RPCResponse(id:result:)` would have.
    static func line(id: RPCID, result: EncodedJSON) -> ByteBuffer {
        let idText = id.jsonValue.jsonBytes
        var buffer = ByteBuffer()
        buffer.reserveCapacity(result.bytes.count + idText.count + 32)
        buffer.writeStaticString(#"{"id":"#)
        buffer.writeBytes(idText)
        buffer.writeStaticString(#","jsonrpc":""#)
        buffer.writeString(RPCRequest.version)
        buffer.writeStaticString(#"","result":"#)
        buffer.writeBytes(result.bytes)
        buffer.writeStaticString("}\n")
        return buffer
    }

    /// A value as one newline-terminated line.
    static func line(_ value: JSONValue) -> ByteBuffer {
        var bytes = value.jsonBytes
        bytes.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: bytes)
    }
}
