import ArgumentParser
import Foundation
import InterPayCore
import InterPayTransport
import Logging
import NIOCore
import NIOEmbedded
import NIOSSL

/// The CPU floor under a mesh of sessions: mutual TLS 1.3 handshakes with the daemons' own configuration (P-256
/// certificates on both sides, each side's key checked as the daemons check it, the dialer expecting the ID it
/// dialed), both ends in this process over in-memory channels: no sockets, no event loop threads, no frames; each
/// connection is closed again (close_notify both ways, a few microseconds). What `count` handshakes cost the CPU,
/// both ends together, is the least a mesh of `count` sessions can cost.
enum HandshakeFloor {
    /// What `count` handshakes cost.
    struct Measurement: Codable, Sendable {
        /// Handshakes done.
        var handshakes: Int
        /// Process CPU time (user and system) they took, both ends together, in seconds.
        var cpuSeconds: Double
        /// Wall time they took, in seconds (one thread).
        var wallSeconds: Double
    }

    /// Runs `count` handshakes between two identities made in `directory`, after a few to warm up.
    static func measure(count: Int, directory: URL) throws -> Measurement {
        let serverIdentity = try Identity.loadOrCreate(in: directory.appending(path: "floor-server"))
        let clientIdentity = try Identity.loadOrCreate(in: directory.appending(path: "floor-client"))
        let serverContext = try NIOSSLContext(configuration: .interPay(identity: serverIdentity, server: true))
        let clientContext = try NIOSSLContext(configuration: .interPay(identity: clientIdentity, server: false))
        let logger = Logger(label: "interpay-bench.handshakes")
        let pair = Pair(
            server: serverContext, client: clientContext, expected: serverIdentity.peerID, logger: logger)
        for _ in 0..<3 { try pair.handshake() }
        let cpu = processCPUSeconds()
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<count { try pair.handshake() }
        let wall = clock.now - started
        return Measurement(
            handshakes: count, cpuSeconds: processCPUSeconds() - cpu,
            wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
    }

    /// User and system CPU time of this process so far, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Two ends of a connection in memory.
    private struct Pair {
        let server: NIOSSLContext
        let client: NIOSSLContext
        let expected: PeerID
        let logger: Logger

        /// One handshake on fresh channels: bytes moved between the ends until neither has more to say, then one
        /// byte of application data from the client must reach the server (which it does only when both ends have
        /// finished the handshake and checked each other's key).
        func handshake() throws {
            let serverChannel = EmbeddedChannel()
            let clientChannel = EmbeddedChannel()
            try serverChannel.pipeline.syncOperations.addHandler(
                NIOSSLServerHandler(
                    context: server,
                    customVerificationCallback: PeerVerifier(expected: nil, address: "client", logger: logger).callback)
            )
            try clientChannel.pipeline.syncOperations.addHandler(
                try NIOSSLClientHandler(
                    context: client, serverHostname: nil,
                    customVerificationCallback: PeerVerifier(expected: expected, address: "server", logger: logger)
                        .callback))
            serverChannel.pipeline.fireChannelActive()
            clientChannel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1), promise: nil)
            clientChannel.writeAndFlush(ByteBuffer(bytes: [1]), promise: nil)
            try pump(clientChannel, serverChannel)
            guard let received = try serverChannel.readInbound(as: ByteBuffer.self), received.readableBytes == 1 else {
                throw BenchError.failed("an in-memory TLS handshake did not complete")
            }
            // Closed as a session ends: close_notify both ways; the shutdown timer is passed at once.
            clientChannel.close(promise: nil)
            try pump(clientChannel, serverChannel)
            for channel in [clientChannel, serverChannel] {
                channel.embeddedEventLoop.advanceTime(by: .seconds(2))
                // Thrown away either way: whether it was already closed or had bytes left does not matter here.
                _ = try? channel.finish(acceptAlreadyClosed: true)
            }
        }

        /// Moves bytes between the two ends until neither has more to say.
        private func pump(_ one: EmbeddedChannel, _ other: EmbeddedChannel) throws {
            var moved = true
            while moved {
                moved = false
                for (from, to) in [(one, other), (other, one)] {
                    from.embeddedEventLoop.run()
                    while let bytes = try from.readOutbound(as: ByteBuffer.self) {
                        try to.writeInbound(bytes)
                        moved = true
                    }
                }
            }
        }
    }
}

/// `interpay-bench handshakes`: the handshake CPU floor alone, for scripts/bench-lan's static mesh figure.
struct Handshakes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the CPU time of mutual TLS 1.3 handshakes with the daemons' certificates, in memory.",
        discussion: """
            Both ends run in this process over in-memory channels, with the daemons' TLS configuration and peer \
            check: the least CPU a session can cost. Prints one JSON object: `handshakes`, `cpuSeconds` (both \
            ends together) and `wallSeconds` (one thread).
            """)

    @Option(help: "Handshakes measured (after three to warm up).")
    var count = 200

    func validate() throws {
        guard count > 0 else { throw ValidationError("--count must be positive") }
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "interpay-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let measured = try HandshakeFloor.measure(count: count, directory: directory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(measured), as: UTF8.self))
    }
}
