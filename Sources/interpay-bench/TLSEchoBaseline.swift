import Foundation
import InterPayTransport
import NIOCore
import NIOPosix
import NIOSSL

/// The network half of the round trip's baseline: a TLS 1.3 session on loopback with the daemons' own
/// configuration (P-256 certificates on both sides), and the time for `size` bytes to go to an echo server and
/// back. No framing, no JSON, no actors: the floor under any request/ack exchange.
enum TLSEchoBaseline {
    /// Starts an echo server, connects a client, and runs `body` with a function that sends `size` bytes and waits
    /// for all of them to come back, returning the milliseconds it took (the first call also does the handshake).
    static func withEcho<T>(
        directory: URL, _ body: (_ roundTrip: (_ size: Int) async throws -> Double) async throws -> T
    ) async throws -> T {
        let serverIdentity = try Identity.loadOrCreate(in: directory.appending(path: "echo-server"))
        let clientIdentity = try Identity.loadOrCreate(in: directory.appending(path: "echo-client"))
        let serverContext = try NIOSSLContext(configuration: .interPay(identity: serverIdentity, server: true))
        let clientContext = try NIOSSLContext(configuration: .interPay(identity: clientIdentity, server: false))
        let server = try await ServerBootstrap(group: .singletonMultiThreadedEventLoopGroup)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLServerHandler(context: serverContext, customVerificationCallback: acceptAnyCertificate))
                    try channel.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let client = try await ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup)
            .connect(host: "127.0.0.1", port: server.localAddress?.port ?? 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        try NIOSSLClientHandler(
                            context: clientContext, serverHostname: nil,
                            customVerificationCallback: acceptAnyCertificate))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await client.executeThenClose { inbound, outbound in
            var replies = inbound.makeAsyncIterator()
            let clock = ContinuousClock()
            return try await body { size in
                let start = clock.now
                try await outbound.write(ByteBuffer(repeating: UInt8(ascii: "x"), count: size))
                var received = 0
                while received < size, let chunk = try await replies.next() { received += chunk.readableBytes }
                guard received == size else { throw BenchError.failed("the echo server closed the connection") }
                return (clock.now - start).milliseconds
            }
        }
    }
}

/// Writes back whatever it reads.
private final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

/// The baseline measures the channel, not the peer check: any certificate is accepted.
private func acceptAnyCertificate(
    _ certificates: [NIOSSLCertificate], _ promise: EventLoopPromise<NIOSSLVerificationResult>
) {
    promise.succeed(.certificateVerified)
}
