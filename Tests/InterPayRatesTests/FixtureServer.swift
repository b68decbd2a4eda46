import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// What the fixture server does for one path.
enum FixtureRoute: Sendable {
    /// Answers `status` with `body` (with a `Content-Length`).
    case body(status: Int, String)
    /// Waits `delay`, then answers 200 with `body`; tests use a delay far beyond the client's timeout.
    case delayed(TimeAmount, String)
    /// Answers 200 with `count` zero bytes, announced with a `Content-Length`.
    case large(count: Int)
    /// Answers 200 with `chunks` chunks of `chunkSize` bytes each, without announcing the length.
    case chunked(chunks: Int, chunkSize: Int)
    /// Answers 302 with `Location: target`.
    case redirect(to: String)
}

/// A real HTTP/1.1 server on 127.0.0.1 and an ephemeral port, serving fixed routes, for tests.
///
/// Counts the requests of each path and keeps the last `User-Agent` it saw. `stop()` closes it; a later request
/// to its port is refused.
final class FixtureServer: Sendable {
    /// The port the server listens on.
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let log: FixtureRequestLog

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel, log: FixtureRequestLog) {
        self.port = port
        self.group = group
        self.channel = channel
        self.log = log
    }

    /// Starts a server for `routes` (path → route); unknown paths get a 404.
    static func start(_ routes: [String: FixtureRoute]) async throws -> FixtureServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = FixtureRequestLog()
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(FixtureHandler(routes: routes, log: log))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                throw FixtureServerError.noPort
            }
            return FixtureServer(port: port, group: group, channel: channel, log: log)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// How many requests for `path` arrived so far.
    func requestCount(_ path: String) -> Int { log.count(path) }

    /// The `User-Agent` of the last request, if any.
    var lastUserAgent: String? { log.lastUserAgent }

    /// Closes the listening socket and every connection, and stops the event loop.
    func stop() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

/// Why the fixture server could not start.
enum FixtureServerError: Error {
    /// The bound socket has no port.
    case noPort
}

/// Requests seen by a fixture server, shared by its connections.
final class FixtureRequestLog: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var lastUserAgent: String?
    }

    private let state = Mutex(State())

    func record(path: String, userAgent: String?) {
        state.withLock { state in
            state.counts[path, default: 0] += 1
            state.lastUserAgent = userAgent
        }
    }

    func count(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    var lastUserAgent: String? { state.withLock { $0.lastUserAgent } }
}

/// Answers each request of one connection according to the routes.
final class FixtureHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: [String: FixtureRoute]
    private let log: FixtureRequestLog
    private var path = "/"

    init(routes: [String: FixtureRoute], log: FixtureRequestLog) {
        self.routes = routes
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            path = head.uri
            log.record(path: head.uri, userAgent: head.headers.first(name: "user-agent"))
        case .body:
            break
        case .end:
            respond(context: context)
        }
    }

    private func respond(context: ChannelHandlerContext) {
        switch routes[path] {
        case .body(let status, let text):
            send(context: context, status: status, body: Array(text.utf8))
        case .delayed(let delay, let text):
            context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
                self.send(context: context, status: 200, body: Array(text.utf8))
            }
        case .large(let count):
            send(context: context, status: 200, body: Array(repeating: 0x20, count: count))
        case .chunked(let chunks, let chunkSize):
            var headers = HTTPHeaders()
            headers.add(name: "transfer-encoding", value: "chunked")
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let chunk = ByteBuffer(repeating: 0x20, count: chunkSize)
            for _ in 0..<chunks {
                context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .redirect(let target):
            var headers = HTTPHeaders()
            headers.add(name: "location", value: target)
            send(context: context, status: 302, body: [], headers: headers)
        case nil:
            send(context: context, status: 404, body: Array("not found".utf8))
        }
    }

    private func send(
        context: ChannelHandlerContext, status: Int, body: [UInt8], headers: HTTPHeaders = HTTPHeaders()
    ) {
        var headers = headers
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.count))
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// Runs `body` with a fixture server for `routes`, and stops the server afterwards, also when `body` throws.
func withFixtureServer<T>(
    _ routes: [String: FixtureRoute], _ body: (FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start(routes)
    let result: T
    do {
        result = try await body(server)
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
    return result
}
