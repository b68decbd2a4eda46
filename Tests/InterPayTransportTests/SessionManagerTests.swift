import Foundation
import InterPayCore
import InterPayTestSupport
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

@testable import InterPayTransport

@Suite("Sessions over TLS on loopback", .tearsDown, .serialized)
struct SessionManagerTests {
    @Test("a dial brings up one authenticated session on both sides, and frames flow")
    func sessionUp() async throws {
        let alice = try await TestPeer(name: "Alice")
        let bob = try await TestPeer(name: "Bob")
        await alice.manager.maintainConnection(key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        await eventually("both sides up") { alice.upPeers() == [bob.id] && bob.upPeers() == [alice.id] }
        let sessions = await bob.manager.currentSessions()
        #expect(sessions.map(\.name) == ["Alice"])
        #expect(sessions.first?.version == 1)

        let accept = PaymentMessage.accept(.init(messageID: UUID(), paymentID: UUID()))
        #expect(await alice.manager.send(accept, to: bob.id))
        await eventually("Bob receives the frame") { bob.messages() == [accept] }
        #expect(await alice.manager.send(accept, to: PeerID(subjectPublicKeyInfoDER: [1])) == false)
        await alice.stop()
        await eventually("Bob sees the session go down") {
            bob.events.contains { if case .down = $0 { true } else { false } }
        }
        await bob.stop()
    }

    @Test("a peer whose key does not match the expected ID is refused")
    func mismatch() async throws {
        let alice = try await TestPeer(name: "Alice")
        let mallory = try await TestPeer(name: "Mallory")
        let bob = PeerID(subjectPublicKeyInfoDER: Array("bob".utf8))
        await alice.manager.maintainConnection(key: "bob", host: "127.0.0.1", port: mallory.port, expectedPeerID: bob)
        await eventually("Alice refuses") { !alice.refusals().isEmpty }
        #expect(alice.upPeers().isEmpty)
        #expect(mallory.upPeers().isEmpty)
        await alice.stop()
        await mallory.stop()
    }

    @Test("simultaneous dials leave exactly one session, the same on both sides")
    func simultaneousDials() async throws {
        let alice = try await TestPeer(name: "Alice")
        let bob = try await TestPeer(name: "Bob")
        await alice.manager.maintainConnection(key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        await bob.manager.maintainConnection(
            key: "alice", host: "127.0.0.1", port: alice.port, expectedPeerID: alice.id)
        await eventually("both up") {
            let a = await alice.manager.currentSessions().count
            let b = await bob.manager.currentSessions().count
            return a == 1 && b == 1
        }
        try await Task.sleep(for: .seconds(2))
        let a = await alice.manager.currentSessions()
        let b = await bob.manager.currentSessions()
        #expect(a.count == 1 && b.count == 1)
        // Both kept the connection dialed by the same side.
        #expect(a.first?.direction != b.first?.direction)
        await alice.stop()
        await bob.stop()
    }

    @Test("a static peer without a known ID is pinned to the first key it shows")
    func staticPeer() async throws {
        let alice = try await TestPeer(name: "Alice")
        let bob = try await TestPeer(name: "Bob")
        await alice.manager.maintainConnection(key: "static", host: "127.0.0.1", port: bob.port, expectedPeerID: nil)
        await eventually("session with Bob") { alice.upPeers() == [bob.id] }
        await alice.stop()
        await bob.stop()
    }

    @Test("a connection that never completes the handshake is closed after the deadline")
    func handshakeDeadline() async throws {
        let bob = try await TestPeer(name: "Bob") { $0.handshakeTimeout = .milliseconds(300) }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: bob.port).get()
        let started = ContinuousClock.now
        try await channel.closeFuture.get()
        // Closed by the daemon, not left open (the bound is wide: a busy machine may hold the test's threads a while).
        #expect(ContinuousClock.now - started < .seconds(20))
        await bob.stop()
    }

    @Test("a dial whose handshake passes the deadline is logged with the address it dialed")
    func outboundDeadlineNamesAddress() async throws {
        // A listener that accepts TCP and never answers: the kernel completes the connection, nothing speaks TLS.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        let storage = RecordingLogHandler.Storage()
        let alice = try await TestPeer(name: "Alice", logger: RecordingLogHandler.logger("alice", storage: storage)) {
            $0.handshakeTimeout = .milliseconds(200)
        }
        await alice.manager.maintainConnection(key: "silent", host: "127.0.0.1", port: port, expectedPeerID: nil)
        await eventually("the deadline is logged") {
            storage.lines.contains { $0.contains("handshake deadline passed") }
        }
        let line = try #require(storage.lines.first { $0.contains("handshake deadline passed") })
        #expect(line.contains("address=127.0.0.1:\(port)"), "\(line)")
        #expect(line.contains("direction=outbound"), "\(line)")
        await alice.stop()
        try await silent.close()
    }

    @Test("an inbound connection whose handshake passes the deadline is logged with its address and port")
    func inboundDeadlineNamesAddress() async throws {
        let storage = RecordingLogHandler.Storage()
        let bob = try await TestPeer(name: "Bob", logger: RecordingLogHandler.logger("bob", storage: storage)) {
            $0.handshakeTimeout = .milliseconds(500)
        }
        let connected = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: bob.port)
        // Read on the event loop as the connection completes: on a loaded machine this task may resume after the
        // deadline has closed the channel, and a closed channel has no address.
        let localPort = connected.map { $0.localAddress?.port }
        let channel = try await connected.get()
        let local = try #require(try await localPort.get())
        try await channel.closeFuture.get()
        await eventually("the deadline is logged") {
            storage.lines.contains { $0.contains("handshake deadline passed") }
        }
        let line = try #require(storage.lines.first { $0.contains("handshake deadline passed") })
        #expect(line.contains("address=127.0.0.1:\(local)"), "\(line)")
        #expect(line.contains("direction=inbound"), "\(line)")
        await bob.stop()
    }

    @Test("TLS without a client certificate is refused")
    func noClientCertificate() async throws {
        let bob = try await TestPeer(name: "Bob")
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        configuration.minimumTLSVersion = .tlsv13
        let context = try NIOSSLContext(configuration: configuration)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: nil))
                }
            }
            .connect(host: "127.0.0.1", port: bob.port).get()
        // Bob may have closed the connection already (the refusal itself): the write then fails, which is fine.
        try? await channel.writeAndFlush(ByteBuffer(bytes: [0, 0, 0, 2, 0x7B, 0x7D]))
        try? await channel.closeFuture.get()
        await eventually("Bob refuses the connection") { !bob.refusals().isEmpty }
        #expect(bob.upPeers().isEmpty)
        await bob.stop()
    }

    @Test("a peer that completes the handshake, then answers no ping, is dropped after three intervals")
    func silentPeer() async throws {
        let bob = try await TestPeer(name: "Bob") { $0.keepaliveInterval = .milliseconds(200) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let identity = try Identity.loadOrCreate(in: directory.url)
        let context = try NIOSSLContext(configuration: .interPay(identity: identity, server: false))
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(
                            context: context, serverHostname: nil,
                            customVerificationCallback: { _, promise in promise.succeed(.certificateVerified) }))
                }
            }
            .connect(host: "127.0.0.1", port: bob.port).get()
        // A real hello, then silence: whatever Bob sends (his hello, pings) is never answered.
        let hello = PaymentMessage.hello(
            .init(minVersion: 1, maxVersion: 1, name: "Silent", capabilities: ["payments"], agent: "test"))
        // Silence counts from the hello: time from before it is sent (a test that sees the session up late, its
        // threads held by a busy machine, would measure too little from then).
        let sent = ContinuousClock.now
        try await channel.writeAndFlush(ByteBuffer(bytes: try FrameCodec().encode(hello)))
        await eventually("a session with the silent peer") { bob.upPeers() == [identity.peerID] }
        await eventually("Bob drops the silent peer", timeout: .seconds(5)) {
            bob.events.contains { if case .down(_, let reason) = $0 { reason.contains("silent") } else { false } }
        }
        #expect(ContinuousClock.now - sent >= .milliseconds(400), "not dropped before the intervals of silence")
        try? await channel.close()
        await bob.stop()
    }

    @Test("an oversize frame in a session is answered limit-exceeded before the connection closes")
    func oversizeAnswered() async throws {
        let bob = try await TestPeer(name: "Bob")
        let client = try await RawClient(port: bob.port)
        try await client.send(try FrameCodec().encode(.hello(RawClient.hello)))
        await eventually("a session with the raw client") { bob.upPeers() == [client.id] }
        try await client.send([0xFF, 0xFF, 0xFF, 0xFF])
        try await client.channel.closeFuture.get()
        let frames = client.frames()
        #expect(
            frames.contains { if case .error(let error) = $0 { error.code == .limitExceeded } else { false } },
            "received: \(frames)")
        await bob.stop()
    }

    @Test("an oversize frame instead of hello is answered limit-exceeded, then closed")
    func oversizeBeforeHello() async throws {
        let bob = try await TestPeer(name: "Bob")
        let client = try await RawClient(port: bob.port)
        try await client.send([0x7F, 0xFF, 0xFF, 0xFF])
        try await client.channel.closeFuture.get()
        let frames = client.frames()
        #expect(
            frames.contains { if case .error(let error) = $0 { error.code == .limitExceeded } else { false } },
            "received: \(frames)")
        #expect(bob.upPeers().isEmpty)
        await bob.stop()
    }

    @Test("connections beyond maxUnauthenticated are closed at once; a place frees up when one goes")
    func unauthenticatedLimit() async throws {
        let bob = try await TestPeer(name: "Bob") {
            $0.maxUnauthenticated = 2
            $0.maxUnauthenticatedPerAddress = 2
            $0.handshakeTimeout = .seconds(60)
        }
        var channels: [any Channel] = []
        for _ in 0..<3 {
            channels.append(
                try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: bob.port).get())
        }
        // Which of the three is refused depends on the order their event loops admit them; exactly one is.
        await eventually("one of three connections is closed") { channels.count { !$0.isActive } == 1 }
        #expect(channels.count { $0.isActive } == 2, "two connections hold their places (deadline 60 s)")
        for channel in channels where channel.isActive {
            try await channel.close()
        }
        let client = try await RawClient(port: bob.port)
        try await client.send(try FrameCodec().encode(.hello(RawClient.hello)))
        await eventually("a session once the places are free") { bob.upPeers() == [client.id] }
        try await client.channel.close()
        await bob.stop()
    }

    @Test("no common protocol version: an error frame, no session")
    func noCommonVersion() async throws {
        let alice = try await TestPeer(name: "Alice") { $0.versions = 2...3 }
        let bob = try await TestPeer(name: "Bob")
        await alice.manager.maintainConnection(key: "bob", host: "127.0.0.1", port: bob.port, expectedPeerID: bob.id)
        await eventually("both refuse") { !alice.refusals().isEmpty && !bob.refusals().isEmpty }
        #expect(alice.upPeers().isEmpty && bob.upPeers().isEmpty)
        #expect(bob.refusals().contains { $0.contains("no common protocol version") })
        await alice.stop()
        await bob.stop()
    }

    @Test("a discovered address whose handshakes never succeed is dialed giveUpAfter times, then dropped")
    func givesUp() async throws {
        let alice = try await TestPeer(name: "Alice")
        let mallory = try await TestPeer(name: "Mallory")
        let bob = PeerID(subjectPublicKeyInfoDER: Array("bob".utf8))
        await alice.manager.maintainConnection(
            key: "dnssd bob", host: "127.0.0.1", port: mallory.port, expectedPeerID: bob, giveUpAfter: 3)
        await eventually("Alice gives up") { await alice.manager.targetCount == 0 }
        // The back-off is at most 500 ms here: a loop that kept dialing would have refused more by now.
        try await Task.sleep(for: .seconds(2))
        #expect(alice.refusals().count == 3)
        #expect(alice.manager.targetsGivenUp == 1)
        // Announced again: dialed again.
        await alice.manager.maintainConnection(
            key: "dnssd bob", host: "127.0.0.1", port: mallory.port, expectedPeerID: bob, giveUpAfter: 3)
        await eventually("dialed again") { alice.refusals().count > 3 }
        await alice.stop()
        await mallory.stop()
    }

    @Test("at most maxConcurrentDials dials are in their handshake at once")
    func concurrentDials() async throws {
        // A listener that accepts and never answers: each dial holds its place until the handshake deadline.
        let accepted = Atomic<Int>(0)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.add(1, ordering: .relaxed)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let alice = try await TestPeer(name: "Alice") {
            $0.maxConcurrentDials = 2
            $0.handshakeTimeout = .milliseconds(400)
        }
        // No expected ID (as for a static peer): each is dialed at once, without the lower ID's head start.
        for index in 0..<6 {
            await alice.manager.maintainConnection(
                key: "silent \(index)", host: "127.0.0.1", port: port, expectedPeerID: nil)
        }
        await eventually("every target dialed") { alice.refusals().count >= 6 }
        #expect(accepted.load(ordering: .relaxed) >= 6, "each of the six dials reached the listener")
        // Counted where the places are taken, so that a loaded machine's timing cannot change it (a check of the
        // accepts' instants did); unbounded, all six dials were in their handshake at once.
        let peak = await alice.manager.peakDialsInFlight
        #expect(peak >= 1 && peak <= 2, "at most two dials at once, seen \(peak)")
        await alice.stop()
        try await listener.close()
    }
}
