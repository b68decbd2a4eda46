import Foundation
import InterPayCore
import InterPayTestSupport
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

@testable import InterPayTransport

/// A session manager on loopback with its events recorded, for tests.
final class TestPeer: Sendable {
    let manager: SessionManager
    let directory: TemporaryDirectory
    let port: Int
    private let recorded = Mutex<[SessionEvent]>([])
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// - Parameter sink: where payment frames go instead of `events` (`SessionManager.deliverPaymentFrames(to:)`).
    init(
        name: String, logger: Logger? = nil, sink: (any PaymentFrameSink)? = nil,
        configure: (inout TransportConfiguration) -> Void = { _ in }
    ) async throws {
        directory = try TemporaryDirectory()
        let identity = try Identity.loadOrCreate(in: directory.url)
        var configuration = TransportConfiguration(displayName: name, host: "127.0.0.1")
        configuration.reconnectBackoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(500))
        configure(&configuration)
        var quiet = Logger(label: "test.\(name)")
        quiet.logLevel = .critical
        manager = try SessionManager(identity: identity, configuration: configuration, logger: logger ?? quiet)
        if let sink { manager.deliverPaymentFrames(to: sink) }
        port = try await manager.start()
        let manager = self.manager
        let run = Task { _ = try? await manager.run() }
        let consume = Task { [self] in
            for await event in manager.events { self.record(event) }
        }
        tasks.withLock { $0 = [run, consume] }
        TestTeardown.atEnd { [self] in await stop() }
    }

    private func record(_ event: SessionEvent) {
        recorded.withLock { $0.append(event) }
    }

    var id: PeerID { manager.identity.peerID }
    var events: [SessionEvent] { recorded.withLock { $0 } }

    func upPeers() -> [PeerID] {
        events.compactMap { if case .up(let info) = $0 { info.peerID } else { nil } }
    }

    func messages() -> [PaymentMessage] {
        events.compactMap { if case .message(let message, _) = $0 { message } else { nil } }
    }

    func refusals() -> [String] {
        events.compactMap { if case .refused(_, let reason) = $0 { reason } else { nil } }
    }

    func stop() async {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for task in tasks.withLock({ $0 }) { await task.value }
        directory.remove()
    }
}

/// A TLS client with its own identity that writes raw bytes and records every byte it receives, for tests of what
/// the listener does with bad input.
final class RawClient: Sendable {
    let channel: any Channel
    let id: PeerID
    private let directory: TemporaryDirectory
    private let received: ReceivedBytes

    /// The `hello` a well-behaved client sends.
    static let hello = PaymentMessage.Hello(
        minVersion: 1, maxVersion: 1, name: "Raw", capabilities: [], agent: "test")

    /// Connects from `source` (a loopback address other than 127.0.0.1 makes another host), with a small receive
    /// buffer when `receiveBufferSize` is given.
    init(port: Int, source: String? = nil, receiveBufferSize: Int? = nil) async throws {
        directory = try TemporaryDirectory()
        let identity = try Identity.loadOrCreate(in: directory.url)
        id = identity.peerID
        let context = try NIOSSLContext(configuration: .interPay(identity: identity, server: false))
        let received = ReceivedBytes()
        self.received = received
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        if let receiveBufferSize {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: .init(receiveBufferSize))
        }
        channel =
            try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(
                            context: context, serverHostname: nil,
                            customVerificationCallback: { _, promise in promise.succeed(.certificateVerified) }))
                    try channel.pipeline.syncOperations.addHandler(ByteRecorder(into: received))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let channel = self.channel
        // Closed already when the test closed it or the server did: nothing to report.
        TestTeardown.atEnd { try? await channel.close() }
    }

    deinit {
        directory.remove()
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Sends `message` as a frame.
    func send(_ message: PaymentMessage) async throws {
        try await send(FrameCodec().encode(message))
    }

    /// Stops reading from the socket: what the server sends piles up in the kernel buffers and then in the server.
    func stopReading() async throws {
        try await channel.setOption(.autoRead, value: false).get()
    }

    /// The complete frames received so far, decoded (undecodable ones left out).
    func frames() -> [PaymentMessage] {
        var bytes = received.bytes[...]
        var frames: [PaymentMessage] = []
        while bytes.count >= 4 {
            let length = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard bytes.count >= 4 + length else { break }
            if let frame = try? FrameCodec().decodeBody(bytes.dropFirst(4).prefix(length)) { frames.append(frame) }
            bytes = bytes.dropFirst(4 + length)
        }
        return frames
    }
}

/// Bytes received on a channel, shared between its handler (event loop) and the test.
final class ReceivedBytes: Sendable {
    private let storage = Mutex<[UInt8]>([])
    var bytes: [UInt8] { storage.withLock { $0 } }
    func append(_ buffer: ByteBuffer) { storage.withLock { $0 += buffer.readableBytesView } }
}

/// Appends every inbound buffer to a `ReceivedBytes`.
final class ByteRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let received: ReceivedBytes

    init(into received: ReceivedBytes) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received.append(unwrapInboundIn(data))
    }
}
