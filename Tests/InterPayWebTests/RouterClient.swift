import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

@testable import InterPayWeb

/// Sends requests straight to a router's responder, with no server and no socket, and hands each answer to a check.
///
/// This is what HummingbirdTesting's `.router` mode does, in the few lines these tests need: that library also
/// carries its live mode's HTTP client (AsyncHTTPClient, NIOHTTP2, swift-configuration), which every debug build of
/// the package then compiled for nothing. As there, each request says `Host: localhost` (port 80), and an error the
/// router does not turn into an answer itself becomes a 500.
struct RouterClient: Sendable {
    /// An answer, its body collected.
    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer
    }

    let responder: RouterResponder<WebRequestContext>
    let logger = Logger(label: "web-test")

    init(router: Router<WebRequestContext>) {
        responder = router.buildResponder()
    }

    /// Sends one request and runs `check` on its answer.
    @discardableResult
    func execute<Value>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (Answer) async throws -> Value
    ) async throws -> Value {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer())
        )
        let context = WebRequestContext(
            source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger)
        )
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let collector = BodyCollector()
        try await response.body.write(collector)
        return try await check(Answer(status: response.status, headers: response.headers, body: collector.body))
    }
}

/// Collects a response body's buffers (a class: the body is handed a copy of its writer).
private final class BodyCollector: ResponseBodyWriter {
    var body = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        body.writeImmutableBuffer(buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
