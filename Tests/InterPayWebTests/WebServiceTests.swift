import Foundation
import InterPayControl
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing

@testable import InterPayWeb

/// The web app's listener against a local user who takes its port or holds connections (SECURITY.md W-LISTEN).
@Suite("Web app listener", .serialized, .timeLimit(.minutes(1)))
struct WebServiceTests {
    static let logger = Logger(label: "web-service-test")

    /// Runs `service` in a service group until `body` returns, then shuts the group down; the group's error, if any.
    static func running(
        _ service: WebService, _ body: () async throws -> Void
    ) async throws -> (any Error)? {
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        let run = Task { () -> (any Error)? in
            do {
                try await group.run()
                return nil
            } catch {
                return error
            }
        }
        try await body()
        await group.triggerGracefulShutdown()
        return await run.value
    }

    /// The port a service reports in `bound` once it listens; 0 when it does not within 20 s.
    static func port(_ bound: borrowing Mutex<Int>) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(20)
        while bound.withLock({ $0 }) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return bound.withLock { $0 }
    }

    /// Whether the peer closes `channel` within `limit`; closes it here when not.
    static func closes(_ channel: any Channel, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while channel.isActive, ContinuousClock.now < deadline {
            // Only cancellation ends the sleep early, and then the test is over anyway.
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard channel.isActive else { return true }
        // Already closed by the other end in between: nothing to do.
        try? await channel.close()
        return false
    }

    @Test("a port already taken leaves the web app off and the group running, with the reason told")
    func portTaken() async throws {
        // Another process holds the port first (a local user can, before the daemon starts).
        let squatter = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 0)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(squatter.localAddress?.port)
        let failure = Mutex<String?>(nil)
        let service = WebService(
            address: try WebListenAddress(parsing: "127.0.0.1:\(port)"), handler: FakeHandler(),
            access: WebAccess(token: "t"), logger: Self.logger, onListening: { _ in },
            onFailure: { error in failure.withLock { $0 = error.description } })
        let error = try await Self.running(service) {
            let deadline = ContinuousClock.now + .seconds(20)
            while failure.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        // Before, the service threw, and a service that throws ends the daemon's whole group.
        #expect(error == nil, "the group ended with \(String(describing: error))")
        let told = failure.withLock { $0 } ?? ""
        #expect(told.contains("cannot serve the web app on 127.0.0.1:\(port): Address already in use"), "\(told)")
        #expect(!told.contains("bind(") && !told.contains("errno"), "the system's words, not NIO's call: \(told)")
        try await squatter.close()
    }

    @Test("connections that send nothing are closed after the idle timeout")
    func idleConnectionsClosed() async throws {
        let bound = Mutex<Int>(0)
        let service = WebService(
            address: try WebListenAddress(parsing: "127.0.0.1:0"), handler: FakeHandler(),
            access: WebAccess(token: "t"), logger: Self.logger, onListening: { port in bound.withLock { $0 = port } },
            maxConnections: 8, idleTimeout: .milliseconds(300))
        let error = try await Self.running(service) {
            let port = try await Self.port(bound)
            try #require(port != 0)
            // Idle clients, as a local user holding the listener's connections would open them; before, they stayed
            // open for good, each a descriptor of the daemon.
            var idle: [any Channel] = []
            for _ in 0..<4 {
                idle.append(
                    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .connect(host: "127.0.0.1", port: port).get())
            }
            for channel in idle {
                #expect(await Self.closes(channel, within: .seconds(5)), "an idle connection is closed by the server")
            }
        }
        #expect(error == nil)
    }

    @Test(
        "a client past its bound has a new connection closed unread; its others stay open, and a place freed is taken again"
    )
    func connectionsPerClientBounded() async throws {
        let bound = Mutex<Int>(0)
        let service = WebService(
            address: try WebListenAddress(parsing: "127.0.0.1:0"), handler: FakeHandler(),
            access: WebAccess(token: "t"), logger: Self.logger, onListening: { port in bound.withLock { $0 = port } },
            maxConnections: 8, maxConnectionsPerClient: 2, idleTimeout: .seconds(30))
        let error = try await Self.running(service) {
            let port = try await Self.port(bound)
            try #require(port != 0)
            // Three connections of one local user. Before the bound, the third was served like the others: one
            // user held every connection the app serves with keep-alive requests. Which of the three is the one too
            // many depends on the order their owners are looked up (on the thread pool).
            var channels: [any Channel] = []
            for _ in 0..<3 {
                channels.append(
                    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .connect(host: "127.0.0.1", port: port).get())
            }
            for _ in 0..<1_000 where channels.allSatisfy(\.isActive) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(300))
            let open = channels.filter(\.isActive)
            #expect(open.count == 2, "one of the three connections is closed, the two within the bound stay open")
            // One closed frees its place, once the server has seen it close: a connection made before then is
            // still one too many, so the client tries again a few times, as a browser would.
            try await open.first?.close()
            var taken = false
            for _ in 0..<10 where !taken {
                let fourth = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: port).get()
                taken = !(await Self.closes(fourth, within: .seconds(1)))
            }
            #expect(taken, "a place freed is taken again")
            for channel in open.dropFirst() { try await channel.close() }
        }
        #expect(error == nil)
    }
}

/// Who a web client is: its socket's owner in the kernel's socket table.
@Suite("Web client")
struct WebClientTests {
    @Test("an address in the socket table's form: words in host order, port in hex")
    func tableKey() throws {
        let v4 = try #require(SocketTableKey(try SocketAddress(ipAddress: "127.0.0.1", port: 8080)))
        #expect(v4.text == "0100007F:1F90")
        #expect(!v4.isIPv6)
        let v6 = try #require(SocketTableKey(try SocketAddress(ipAddress: "::1", port: 443)))
        #expect(v6.text == "00000000000000000000000001000000:01BB")
        #expect(v6.isIPv6)
    }

    @Test("the owner is the uid column of the row whose ends match, not of another row")
    func ownerFromTable() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0
               1: 0100007F:A000 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0
               2: 0200007F:A001 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 3 1 0
            """
        #expect(WebClient.owner(in: table, client: "0100007F:A000", server: "0100007F:1F90") == 1000)
        #expect(WebClient.owner(in: table, client: "0200007F:A001", server: "0100007F:1F90") == 1001)
        #expect(WebClient.owner(in: table, client: "0100007F:A002", server: "0100007F:1F90") == nil)
    }

    @Test("a live loopback connection's client is this process's user")
    func liveOwner() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let serverAddress = try #require(server.localAddress)
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(to: serverAddress).get()
        let clientAddress = try #require(client.localAddress)
        #expect(WebClient.identify(remote: clientAddress, local: serverAddress) == .user(getuid()))
        try await client.close()
        try await server.close()
    }
}
