import Foundation
import InterPayCore
import InterPayTestSupport
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import InterPayTransport

/// The bounds that keep a hostile or slow peer from exhausting the daemon: sessions, inbound and outbound queues,
/// unauthenticated places per address, and no TLS session resumption.
@Suite("Bounded sessions and queues", .tearsDown, .serialized)
struct BoundsTests {
    // MARK: Session limit

    /// Brings up a session from `client` to `server` and stops redialing it (so that an evicted client stays out).
    private func connect(_ client: TestPeer, to server: TestPeer) async {
        await client.manager.maintainConnection(
            key: "server", host: "127.0.0.1", port: server.port, expectedPeerID: server.id)
        await eventually("\(client.id.shortDescription) up") {
            await server.manager.currentSessions().contains { $0.peerID == client.id }
        }
        await client.manager.stopMaintaining(key: "server")
    }

    @Test("at the session limit the idlest unpreferred session is evicted, a preferred one never")
    func evictionOrder() async throws {
        // Every test peer dials from 127.0.0.1: this test is about the total, so one address may hold all.
        let server = try await TestPeer(name: "Server") {
            $0.maxSessions = 3
            $0.maxSessionsPerAddress = 10
        }
        let paired = try await TestPeer(name: "Paired")
        let preferred = paired.id
        server.manager.preferPeers { $0 == preferred }
        let first = try await TestPeer(name: "First")
        let second = try await TestPeer(name: "Second")
        await connect(paired, to: server)
        await connect(first, to: server)
        await connect(second, to: server)
        // `first` talks after `second` came up: `second` is now the idlest unpaired session.
        let frame = PaymentMessage.accept(.init(messageID: UUID(), paymentID: UUID()))
        #expect(await first.manager.send(frame, to: server.id))
        await eventually("the server has the frame") { server.messages().count == 1 }

        let third = try await TestPeer(name: "Third")
        await connect(third, to: server)
        var ids = Set(await server.manager.currentSessions().map(\.peerID))
        #expect(ids == [paired.id, first.id, third.id])
        await eventually("the eviction is reported") {
            server.events.contains {
                if case .down(let info, "evicted") = $0 { info.peerID == second.id } else { false }
            }
        }

        // A flood of fresh keys: the paired peer's session stays, the count never passes the limit.
        var flood: [TestPeer] = []
        for index in 0..<6 {
            let peer = try await TestPeer(name: "Fresh\(index)")
            await connect(peer, to: server)
            flood.append(peer)
            let count = await server.manager.currentSessions().count
            #expect(count <= 3)
        }
        ids = Set(await server.manager.currentSessions().map(\.peerID))
        #expect(ids.contains(paired.id))
        #expect(ids.contains(flood[5].id))
        for peer in [server, paired, first, second, third] + flood { await peer.stop() }
    }

    @Test("at the session limit with only preferred sessions, a new unpreferred peer is refused")
    func refusedWhenAllPreferred() async throws {
        // Every test peer dials from 127.0.0.1: this test is about the total, so one address may hold all.
        let server = try await TestPeer(name: "Server") {
            $0.maxSessions = 1
            $0.maxSessionsPerAddress = 10
        }
        let paired = try await TestPeer(name: "Paired")
        let preferred = paired.id
        server.manager.preferPeers { $0 == preferred }
        await connect(paired, to: server)
        let stranger = try await TestPeer(name: "Stranger")
        await stranger.manager.maintainConnection(
            key: "server", host: "127.0.0.1", port: server.port, expectedPeerID: server.id)
        await eventually("the stranger is refused") {
            server.refusals().contains { $0.contains("sessions up, none to evict") }
        }
        await stranger.manager.stopMaintaining(key: "server")
        #expect(await server.manager.currentSessions().map(\.peerID) == [paired.id])
        for peer in [server, paired, stranger] { await peer.stop() }
    }

    @Test("a peer no longer preferred (its pairing forgotten) can be evicted as soon as the manager is told")
    func preferenceChangedAfterSessionUp() async throws {
        // Every test peer dials from 127.0.0.1: this test is about the total, so one address may hold all.
        let server = try await TestPeer(name: "Server") {
            $0.maxSessions = 1
            $0.maxSessionsPerAddress = 10
        }
        let formerlyPaired = try await TestPeer(name: "FormerlyPaired")
        let pairedIDs = Mutex<Set<PeerID>>([formerlyPaired.id])
        server.manager.preferPeers { peer in pairedIDs.withLock { $0.contains(peer) } }
        await connect(formerlyPaired, to: server)
        // The pairing is forgotten (the daemon: `interpay untrust` committed), and the manager told so.
        pairedIDs.withLock { $0 = [] }
        await server.manager.preferenceChanged(for: formerlyPaired.id)
        let stranger = try await TestPeer(name: "Stranger")
        await connect(stranger, to: server)
        #expect(await server.manager.currentSessions().map(\.peerID) == [stranger.id])
        #expect(!server.refusals().contains { $0.contains("sessions up, none to evict") })
        for peer in [server, formerlyPaired, stranger] { await peer.stop() }
    }

    @Test("an address holding its share of sessions evicts its own idlest for a new one")
    func perAddressShare() async throws {
        let server = try await TestPeer(name: "Server") {
            $0.maxSessions = 10
            $0.maxSessionsPerAddress = 2
        }
        let first = try await TestPeer(name: "First")
        let second = try await TestPeer(name: "Second")
        let third = try await TestPeer(name: "Third")
        await connect(first, to: server)
        await connect(second, to: server)
        await connect(third, to: server)
        #expect(Set(await server.manager.currentSessions().map(\.peerID)) == [second.id, third.id])
        await eventually("the eviction is reported") {
            server.events.contains {
                if case .down(let info, "evicted") = $0 { info.peerID == first.id } else { false }
            }
        }
        for peer in [server, first, second, third] { await peer.stop() }
    }

    @Test("a session with a pairing attempt in progress is never evicted, however idle; once it ends it may be")
    func pairingProtected() async throws {
        let server = try await TestPeer(name: "Server") {
            $0.maxSessions = 2
            $0.maxSessionsPerAddress = 2
        }
        let pairing = try await TestPeer(name: "Pairing")
        await connect(pairing, to: server)
        server.manager.setPairingInProgress(true, for: pairing.id)
        var flood: [TestPeer] = []
        for index in 0..<4 {
            let peer = try await TestPeer(name: "Fresh\(index)")
            await connect(peer, to: server)
            flood.append(peer)
            #expect(await server.manager.currentSessions().contains { $0.peerID == pairing.id })
        }
        #expect(
            !server.events.contains { if case .down(let info, _) = $0 { info.peerID == pairing.id } else { false } })
        // The attempt ended: the idlest session goes next.
        server.manager.setPairingInProgress(false, for: pairing.id)
        let last = try await TestPeer(name: "Last")
        await connect(last, to: server)
        #expect(!(await server.manager.currentSessions().contains { $0.peerID == pairing.id }))
        for peer in [server, pairing, last] + flood { await peer.stop() }
    }

    // MARK: Inbound: no frame lost

    @Test("the event queue holds at most its capacity of frames, loses none, and never holds back up and down")
    func eventQueue() async throws {
        let events = SessionEvents(frameCapacity: 4)
        let peer = PeerID(subjectPublicKeyInfoDER: [1])
        let frames = (0..<50).map { _ in PaymentMessage.accept(.init(messageID: UUID(), paymentID: UUID())) }
        let producer = Task {
            for frame in frames { await events.send(.message(frame, from: peer)) }
        }
        await eventually("the queue fills") { events.waitingFrames == 4 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(events.waitingFrames == 4, "the sender waits instead of adding a fifth frame")
        var received: [PaymentMessage] = []
        for await event in events {
            if case .message(let message, _) = event { received.append(message) }
            #expect(events.waitingFrames <= 4)
            if received.count == frames.count { break }
        }
        await producer.value
        #expect(received == frames)
        events.finish()
    }

    @Test("10 peers × 600 frames to a slow consumer: every frame arrives, in order per peer")
    func flood() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var logger = Logger(label: "test.flood")
        logger.logLevel = .critical
        var configuration = TransportConfiguration(displayName: "Server", host: "127.0.0.1")
        configuration.maxOutboundFrames = 4_096
        let server = try SessionManager(
            identity: try Identity.loadOrCreate(in: directory.url), configuration: configuration, logger: logger)
        let port = try await server.start()
        // Cancelled at the end of the test: its error then is the cancellation.
        let run = Task { _ = try? await server.run() }
        TestTeardown.atEnd {
            run.cancel()
            await run.value
        }
        let received = Mutex<[PeerID: [UUID]]>([:])
        let peak = Mutex(0)
        let consume = Task {
            var count = 0
            for await event in server.events {
                guard case .message(let message, let peer) = event, let id = message.messageID else { continue }
                received.withLock { $0[peer, default: []].append(id) }
                peak.withLock { $0 = max($0, server.events.waitingFrames) }
                count += 1
                // A consumer much slower than the peers (the ledger's commits).
                // A cancelled sleep only ends the pause early.
                if count % 50 == 0 { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
        var clients: [TestPeer] = []
        var sent: [PeerID: [UUID]] = [:]
        for index in 0..<10 {
            let client = try await TestPeer(name: "Client\(index)") { $0.maxOutboundFrames = 1_000 }
            await client.manager.maintainConnection(
                key: "server", host: "127.0.0.1", port: port, expectedPeerID: server.identity.peerID)
            clients.append(client)
        }
        // Both ends of every session: a client whose own end is not registered yet would send nothing.
        await eventually("all up") {
            await server.currentSessions().count == 10
                && clients.allSatisfy { $0.manager.session(with: server.identity.peerID) != nil }
        }
        await withTaskGroup(of: (PeerID, [UUID]).self) { group in
            for client in clients {
                group.addTask {
                    var ids: [UUID] = []
                    for _ in 0..<600 {
                        let id = UUID()
                        let sent = await client.manager.send(
                            .accept(.init(messageID: id, paymentID: UUID())), to: server.identity.peerID)
                        if sent { ids.append(id) }
                    }
                    return (client.id, ids)
                }
            }
            for await (peer, ids) in group { sent[peer] = ids }
        }
        #expect(sent.values.map(\.count).reduce(0, +) == 6_000)
        await eventually("every frame arrives", timeout: .seconds(60)) {
            received.withLock { $0.values.map(\.count).reduce(0, +) } >= 6_000
        }
        let got = received.withLock { $0 }
        for (peer, ids) in sent { #expect(got[peer] == ids, "frames of \(peer.shortDescription) lost or reordered") }
        #expect(peak.withLock { $0 } <= server.events.frameCapacity + 10)
        for client in clients { await client.stop() }
        run.cancel()
        await run.value
        consume.cancel()
        await consume.value
    }

    @Test("a payment-frame sink: its readers wait while it holds a frame, then every frame arrives in order per peer")
    func frameSink() async throws {
        let sink = GatedSink()
        let server = try await TestPeer(name: "Server", sink: sink)
        var clients: [TestPeer] = []
        for index in 0..<3 {
            let client = try await TestPeer(name: "Client\(index)") { $0.maxOutboundFrames = 1_000 }
            await client.manager.maintainConnection(
                key: "server", host: "127.0.0.1", port: server.port, expectedPeerID: server.id)
            clients.append(client)
        }
        await eventually("all up") {
            server.upPeers().count == 3
                && clients.allSatisfy { $0.manager.session(with: server.id) != nil }
        }
        var sent: [PeerID: [UUID]] = [:]
        for client in clients {
            var ids: [UUID] = []
            for index in 0..<200 {
                if index == 100 {
                    let pair = PaymentMessage.pair(
                        .init(pairingID: UUID(), step: .commit, value: [UInt8](repeating: 1, count: 32)))
                    #expect(await client.manager.send(pair, to: server.id))
                }
                let id = UUID()
                #expect(await client.manager.send(.accept(.init(messageID: id, paymentID: UUID())), to: server.id))
                ids.append(id)
            }
            sent[client.id] = ids
        }
        // Each session's reader holds its first frame in the closed sink and reads nothing further.
        await eventually("every reader waits in the sink") { sink.waiting == 3 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(sink.waiting == 3, "a reader went on while its frame was held")
        #expect(sink.taken.isEmpty)
        #expect(server.messages().count == 0, "no frame went around the sink")
        sink.open()
        await eventually("every frame arrives", timeout: .seconds(30)) {
            sink.taken.values.map(\.count).reduce(0, +) == 600 && server.messages().count == 3
        }
        let taken = sink.taken
        for (peer, ids) in sent {
            let same = taken[peer] == ids
            #expect(same, "frames of \(peer.shortDescription) lost or reordered")
        }
        #expect(sink.mostAtOnce == 1, "one session handed over two frames at once")
        #expect(
            server.messages().allSatisfy { if case .pair = $0 { true } else { false } }, "pair frames stay in events")
        for client in clients { await client.stop() }
        await server.stop()
    }

    // MARK: Outbound bound

    @Test("a peer that floods pings and never reads is disconnected once its outbound queue fills")
    func nonReadingPeer() async throws {
        let server = try await TestPeer(name: "Server") { $0.maxOutboundFrames = 64 }
        let client = try await RawClient(port: server.port, receiveBufferSize: 4_096)
        try await client.send(.hello(RawClient.hello))
        await eventually("session up") { server.upPeers() == [client.id] }
        try await client.stopReading()
        let ping = try FrameCodec().encode(.ping(nonce: 1))
        let batch = Array([[UInt8]](repeating: ping, count: 1_000).joined())
        var sent = 0
        while client.channel.isActive, sent < 2_000_000 {
            do { try await client.send(batch) } catch { break }
            sent += 1_000
        }
        await eventually("the server closes the session", timeout: .seconds(30)) {
            server.events.contains {
                if case .down(_, let reason) = $0 { reason.contains("peer not reading") } else { false }
            }
        }
        #expect(!client.channel.isActive || sent < 2_000_000)
        try? await client.channel.close()  // It may be closed already: either way it is gone.
        await server.stop()
    }

    @Test("a burst beyond the outbound bound to a peer that reads slowly is delivered, not cut off")
    func slowReaderBurst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var logger = Logger(label: "test.burst")
        logger.logLevel = .critical
        let server = try SessionManager(
            identity: try Identity.loadOrCreate(in: directory.url),
            configuration: TransportConfiguration(displayName: "Server", host: "127.0.0.1"), logger: logger)
        let port = try await server.start()
        // Cancelled at the end of the test: its error then is the cancellation.
        let run = Task { _ = try? await server.run() }
        TestTeardown.atEnd {
            run.cancel()
            await run.value
        }
        let received = Mutex(0)
        let consume = Task {
            for await event in server.events {
                guard case .message = event else { continue }
                let count = received.withLock { count in
                    count += 1
                    return count
                }
                // A cancelled sleep only ends the pause early.
                if count % 100 == 0 { try? await Task.sleep(for: .milliseconds(50)) }
            }
        }
        let client = try await TestPeer(name: "Client") { $0.maxOutboundFrames = 100 }
        await client.manager.maintainConnection(
            key: "server", host: "127.0.0.1", port: port, expectedPeerID: server.identity.peerID)
        // Both ends: the client sends only on a session its own manager has registered.
        await eventually("up on both ends") {
            let serverSide = await server.currentSessions().count
            let clientSide = await client.manager.currentSessions().count
            return serverSide == 1 && clientSide == 1
        }
        var sent = 0
        for _ in 0..<600 {
            let frame = PaymentMessage.accept(.init(messageID: UUID(), paymentID: UUID()))
            if await client.manager.send(frame, to: server.identity.peerID) { sent += 1 }
        }
        #expect(sent == 600, "the client's queue took the burst")
        await eventually("every frame arrives", timeout: .seconds(30)) { received.withLock { $0 } == 600 }
        #expect(!client.events.contains { if case .down = $0 { true } else { false } }, "the session stayed up")
        await client.stop()
        run.cancel()
        await run.value
        consume.cancel()
        await consume.value
    }

    /// A session handle of an inbound peer (its key a single byte) on a testing channel that any thread may use,
    /// with an outbound queue bound of 4; the channel holds every write until `writes` releases it.
    private func testSession(
        key: UInt8, stallTimeout: Duration = .seconds(5), writes: HeldWrites = HeldWrites(),
        isWritable: (@Sendable () -> Bool)? = nil
    ) async throws -> SessionHandle {
        var logger = Logger(label: "test.session")
        logger.logLevel = .critical
        let info = SessionInfo(
            peerID: PeerID(subjectPublicKeyInfoDER: [key]), name: "Peer", version: 1, remoteAddress: "127.0.0.1:1",
            direction: .inbound, since: Date(), capabilities: [], serial: 1)
        let channel = NIOAsyncTestingChannel()
        try await channel.pipeline.addHandler(writes)
        return SessionHandle(
            info: info, dialer: info.peerID, channel: channel, outboundCapacity: 4, preferred: false,
            logger: logger, stallTimeout: stallTimeout, isWritable: isWritable)
    }

    @Test("time the reader spends waiting for the daemon is not the peer's silence")
    func heldReadsAreNotSilence() async throws {
        let session = try await testSession(key: 3)
        try await Task.sleep(for: .milliseconds(60))
        #expect(session.silence >= .milliseconds(50), "nothing read: the silence grows")
        session.holdReads(true)
        try await Task.sleep(for: .milliseconds(60))
        #expect(session.silence == .zero, "the daemon is behind, the socket is not read: no silence is counted")
        session.holdReads(false)
        #expect(session.silence < .milliseconds(50), "reading again: the silence starts from now")
    }

    @Test("a connection that stays unwritable across ticks is a stall, even with nothing of ours waiting")
    func unwritableChannelIsAStall() async throws {
        let writable = Mutex(true)
        let session = try await testSession(key: 4, stallTimeout: .milliseconds(50)) { writable.withLock { $0 } }
        writable.withLock { $0 = false }
        #expect(!session.closeIfStalled(), "first seen unwritable: not yet a stall")
        writable.withLock { $0 = true }
        try await Task.sleep(for: .milliseconds(60))
        #expect(!session.closeIfStalled(), "writable again in between: the clock starts over")
        writable.withLock { $0 = false }
        #expect(!session.closeIfStalled())
        try await Task.sleep(for: .milliseconds(60))
        #expect(session.closeIfStalled(), "unwritable at two ticks a stall timeout apart: closed")
        #expect(session.endReason?.contains("the connection has taken nothing") == true)
    }

    @Test("the outbound queue: beyond its bound only while writes complete, never beyond eight times it")
    func outboundQueueRules() async throws {
        let ping = OutboundFrame.message(.ping(nonce: 1))

        // Writes that complete now and then: the queue may pass its bound, up to the hard bound.
        let reading = try await testSession(key: 2, stallTimeout: .seconds(60))
        for _ in 0..<32 { #expect(reading.enqueue(ping)) }
        #expect(reading.queued == 32)
        #expect(!reading.enqueue(ping), "the hard bound (8 × 4) is reached: the session is closed")
        #expect(reading.endReason?.contains("peer not reading") == true)
        #expect(!reading.enqueue(ping))

        // No write completed for longer than the stall timeout: full at the bound.
        let stalled = try await testSession(key: 2, stallTimeout: .milliseconds(50))
        for _ in 0..<4 { #expect(stalled.enqueue(ping)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!stalled.enqueue(ping), "the bound is reached and nothing is written: the session is closed")

        // A completed write lets the queue pass the bound again.
        let writes = HeldWrites()
        let progressing = try await testSession(key: 2, stallTimeout: .milliseconds(50), writes: writes)
        for _ in 0..<5 { #expect(progressing.enqueue(ping)) }
        await eventually("the writes reach the socket") { writes.count == 5 }
        try await Task.sleep(for: .milliseconds(100))
        writes.release(1)
        await eventually("one write completes") { progressing.queued == 4 }
        #expect(progressing.enqueue(ping) && progressing.enqueue(ping))
        #expect(progressing.queued == 6)

        // A write that does not complete is a stall however few frames wait; a completed one is progress.
        let held = HeldWrites()
        let blocked = try await testSession(key: 2, stallTimeout: .milliseconds(50), writes: held) { true }
        #expect(blocked.enqueue(ping))
        await eventually("the write reaches the socket") { held.count == 1 }
        held.release(1)
        await eventually("it completes") { blocked.queued == 0 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!blocked.closeIfStalled(), "idle: the last write completed")
        #expect(blocked.enqueue(ping))
        #expect(blocked.queued == 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(blocked.closeIfStalled(), "a write in flight for longer than the stall timeout")
        #expect(blocked.endReason?.contains("peer not reading") == true)
    }

    @Test("a finished queue is done once its writes complete; a write that fails ends it at once")
    func outboundDone() async throws {
        let ping = OutboundFrame.message(.ping(nonce: 1))
        let writes = HeldWrites()
        let session = try await testSession(key: 5, writes: writes)
        #expect(session.enqueue(ping) && session.enqueue(ping))
        await eventually("the writes reach the socket") { writes.count == 2 }
        session.finishOutbound()
        #expect(!session.enqueue(ping), "nothing is queued after the end")
        let done = Task { await session.outboundDone() }
        try await Task.sleep(for: .milliseconds(50))
        writes.release(1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(session.queued == 1, "one write still in flight")
        writes.release(1)
        await done.value
        #expect(session.queued == 0)

        let failing = HeldWrites()
        let broken = try await testSession(key: 6, writes: failing)
        #expect(broken.enqueue(ping))
        await eventually("the write reaches the socket") { failing.count == 1 }
        failing.fail()
        await broken.outboundDone()
        #expect(!broken.enqueue(ping), "a failed write ends the queue")
    }

    // MARK: Unauthenticated places per address

    @Test("one address holds at most its share of the unauthenticated places; another still connects")
    func perAddressPlaces() async throws {
        let server = try await TestPeer(name: "Server") {
            $0.maxUnauthenticated = 8
            $0.handshakeTimeout = .seconds(60)
        }
        // 127.0.0.1 opens 8 idle connections: only its share (2 of 8) stay; the rest are closed at once.
        var idle: [any Channel] = []
        for _ in 0..<8 {
            idle.append(
                try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: server.port).get())
        }
        await eventually("six of eight closed") { idle.count { !$0.isActive } == 6 }
        #expect(idle.count { $0.isActive } == 2)
        // Another host (127.0.0.2) still gets a session.
        let other = try await RawClient(port: server.port, source: "127.0.0.2")
        try await other.send(.hello(RawClient.hello))
        await eventually("the other host's session is up") { server.upPeers() == [other.id] }
        for channel in idle where channel.isActive { try await channel.close() }
        try await other.channel.close()
        await server.stop()
    }

    @Test("per-address places: the share is counted per address and given back on release")
    func perAddressCounting() throws {
        let places = UnauthenticatedConnections(limit: 4, perAddressLimit: 2)
        let a1 = try places.admit(from: "198.18.0.1").get()
        _ = try places.admit(from: "198.18.0.1").get()
        #expect(throws: UnauthenticatedConnections.Refusal.addressFull) { try places.admit(from: "198.18.0.1").get() }
        _ = try places.admit(from: "198.18.0.2").get()
        _ = try places.admit(from: "198.18.0.3").get()
        #expect(throws: UnauthenticatedConnections.Refusal.full) { try places.admit(from: "198.18.0.4").get() }
        a1.release()
        #expect(places.count(from: "198.18.0.1") == 1)
        _ = try places.admit(from: "198.18.0.1").get()
    }

    @Test("open connections are bounded in every stage: a session or a closing connection keeps its place")
    func openLimit() throws {
        let places = UnauthenticatedConnections(limit: 4, perAddressLimit: 4, openLimit: 2)
        let session = try places.admit(from: "198.18.0.1").get()
        let closing = try places.admit(from: "198.18.0.2").get()
        session.release()  // handshake done: the unauthenticated place is free, the connection still open
        closing.release()
        #expect(places.count == 0 && places.openCount == 2)
        #expect(throws: UnauthenticatedConnections.Refusal.open) { try places.admit(from: "198.18.0.3").get() }
        closing.closed()
        closing.closed()
        #expect(places.openCount == 1)
        let next = try places.admit(from: "198.18.0.3").get()
        next.closed()
        #expect(places.count == 0 && places.openCount == 1)
        session.closed()
        #expect(places.openCount == 0)
    }
}

/// A payment-frame sink that holds every frame while it is closed, and records each one it took, per peer.
private final class GatedSink: PaymentFrameSink {
    private struct State {
        var isOpen = false
        var held: [CheckedContinuation<Void, Never>] = []
        var taken: [PeerID: [UUID]] = [:]
        var inFlight: [PeerID: Int] = [:]
        var mostAtOnce = 0
    }

    private let state = Mutex(State())

    /// How many frames wait for the sink to open.
    var waiting: Int { state.withLock { $0.held.count } }
    /// The message IDs taken, per peer, in order.
    var taken: [PeerID: [UUID]] { state.withLock { $0.taken } }
    /// The most frames of one peer in the sink at once.
    var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

    func take(_ message: PaymentMessage, from peer: PeerID) async {
        state.withLock {
            $0.inFlight[peer, default: 0] += 1
            $0.mostAtOnce = max($0.mostAtOnce, $0.inFlight[peer, default: 0])
        }
        await withCheckedContinuation { continuation in
            let hold = state.withLock { state -> Bool in
                guard !state.isOpen else { return false }
                state.held.append(continuation)
                return true
            }
            if !hold { continuation.resume() }
        }
        state.withLock {
            $0.inFlight[peer, default: 0] -= 1
            if let id = message.messageID { $0.taken[peer, default: []].append(id) }
        }
    }

    /// Lets the held frames and every later one through.
    func open() {
        let held = state.withLock { state in
            state.isOpen = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }
}

/// A socket that takes nothing until told: holds every write's promise until `release(_:)` or `fail()`.
final class HeldWrites: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = Any

    private let promises = Mutex<[EventLoopPromise<Void>?]>([])

    /// Writes held now.
    var count: Int { promises.withLock { $0.count } }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promises.withLock { $0.append(promise) }
    }

    /// Completes the oldest `count` held writes.
    func release(_ count: Int) {
        let released = promises.withLock { held in
            let first = Array(held.prefix(count))
            held.removeFirst(first.count)
            return first
        }
        for promise in released { promise?.succeed() }
    }

    /// Fails every held write.
    func fail() {
        let failed = promises.withLock { held in
            defer { held = [] }
            return held
        }
        for promise in failed { promise?.fail(ChannelError.ioOnClosedChannel) }
    }
}
