import FoundationEssentials
public import Hummingbird
public import InterPayContract
import NIOCore
import Synchronization

/// The web app's routes: the pages, `/login`, the control methods under `/api/`, and the event stream.
///
/// The API is the control socket's method table, unchanged: `GET /api/status` answers what `interpay status --json`
/// answers, `POST /api/METHOD` with a JSON object of params calls any other method the CLI calls, and
/// `GET /api/events` streams what `interpay watch` prints, as Server-Sent Events.
public enum WebApp {
    /// Methods the web app may call, with whether a plain GET (no params) may call them: those of
    /// `ControlAPI.methods` whose `webAccess` allows it. `web` (which hands out the token) and `export` (which writes
    /// a file where the caller says) stay on the control socket.
    public static let methods: [String: Bool] = Dictionary(
        uniqueKeysWithValues: ControlAPI.methods.compactMap { method in
            switch method.webAccess {
            case .get: (method.name, true)
            case .post: (method.name, false)
            case .none: nil
            }
        })

    /// Largest request body read, in bytes.
    public static let maxBodySize = 64 * 1024

    /// The scripts served from Debian's packages under `/vendor/`, each the first file found of its list:
    /// Chart.js (`libjs-chart.js`) and the QR code generator (`node-qrcode-generator`).
    public static let vendorScripts: [String: [String]] = [
        "chart.js": [
            "/usr/share/javascript/chart.js/chart.umd.min.js", "/usr/share/javascript/chart.js/chart.min.js",
            "/usr/share/javascript/chart.js/chart.umd.js", "/usr/share/javascript/chartjs/chart.min.js",
            "/usr/share/nodejs/chart.js/dist/chart.umd.js",
        ],
        "qrcode.js": [
            "/usr/share/javascript/qrcode-generator/qrcode.js", "/usr/share/nodejs/qrcode-generator/qrcode.js",
        ],
    ]

    /// The router: every request passes the security headers, the `Host` check and the `Origin` check, and every
    /// route under `/api/` the credential check, in that order.
    public static func router(
        handler: any ControlHandler, access: WebAccess, heartbeat: Duration = .seconds(15),
        vendorScripts: [String: [String]] = vendorScripts
    ) -> Router<WebRequestContext> {
        router(
            handler: handler, access: access, heartbeat: heartbeat, vendorScripts: vendorScripts,
            streams: StreamCount())
    }

    /// The router, counting its event streams in `streams`.
    static func router(
        handler: any ControlHandler, access: WebAccess, heartbeat: Duration,
        vendorScripts: [String: [String]], streams: StreamCount
    ) -> Router<WebRequestContext> {
        let router = Router(context: WebRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware())
        router.add(middleware: RefusalMiddleware())
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: AccessMiddleware(access: access))
        // The credential check is bound to the routes, not to a path prefix: the router also matches `//api/status`
        // (it drops empty segments), which a check of the path's text would let through.
        let api = router.group("api").add(middleware: CredentialMiddleware(access: access))

        router.get("/login") { request, _ -> Response in
            // A one-time code from `interpay web`, or the token itself; either opens a session of its own, handed to
            // the page in the page itself (`page(language:session:)`), never in a cookie.
            let query = request.uri.queryParameters
            guard let presented = query["code"] ?? query["token"],
                let session = access.openSession(code: String(presented))
            else {
                return loginRefusedPage(language: language(acceptLanguage: request.headers[.acceptLanguage]))
            }
            return try page(language: language(acceptLanguage: request.headers[.acceptLanguage]), session: session)
        }
        router.get("/") { request, _ -> Response in
            try page(language: language(acceptLanguage: request.headers[.acceptLanguage]), session: nil)
        }
        router.get("/assets/:name") { _, context in try asset(context.parameters.get("name") ?? "") }
        router.get("/vendor/:name") { _, context -> Response in
            let name = context.parameters.get("name") ?? ""
            for path in vendorScripts[name] ?? [] {
                if let data = FileManager.default.contents(atPath: path) {
                    return Response(
                        status: .ok, headers: [.contentType: "text/javascript; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
                }
            }
            throw HTTPError(
                .notFound, message: "\(name) is not installed (Debian: libjs-chart.js, node-qrcode-generator)")
        }
        api.get("events") { _, _ in events(handler: handler, heartbeat: heartbeat, streams: streams) }
        api.get(":method") { _, context -> Response in
            let method = context.parameters.get("method") ?? ""
            guard methods[method] == true else { throw HTTPError(.methodNotAllowed, message: "use POST") }
            return await call(handler, method, params: nil)
        }
        api.post(":method") { request, context -> Response in
            let method = context.parameters.get("method") ?? ""
            guard methods[method] != nil else {
                return errorResponse(.methodNotFound(method))
            }
            let body = try await collectBody(request, context: context, upTo: maxBodySize)
            var params: JSONValue?
            if body.readableBytes > 0 {
                do {
                    params = try JSONValue(parsing: body.readableBytesView)
                } catch {
                    return errorResponse(RPCError(code: .parseError, message: "\(error)"))
                }
            }
            if let params, params.objectValue == nil, params.arrayValue == nil {
                return errorResponse(RPCError(code: .invalidParams, message: "params must be an object"))
            }
            return await call(handler, method, params: params)
        }
        return router
    }

    /// The language of the pages for an `Accept-Language` header: `es` when Spanish comes before English (by
    /// quality, then order), else `en`.
    public static func language(acceptLanguage: String?) -> String {
        var best: (language: String, quality: Double)?
        for part in (acceptLanguage ?? "").split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingWhitespace }
            guard let tag = pieces.first?.lowercased() else { continue }
            let primary = String(tag.prefix { $0 != "-" })
            guard primary == "es" || primary == "en" else { continue }
            var quality = 1.0
            for piece in pieces.dropFirst() where piece.hasPrefix("q=") {
                quality = Double(piece.dropFirst(2)) ?? 0
            }
            if quality > (best?.quality ?? 0) { best = (primary, quality) }
        }
        return best?.language ?? "en"
    }

    /// What a browser shows for a wrong, used or expired login link (401): a page in the user's language that says
    /// what to do, not a JSON error.
    static func loginRefusedPage(language: String) -> Response {
        let (title, text) =
            language == "es"
            ? (
                "Enlace de acceso no válido",
                "Este enlace de acceso es incorrecto, ya se usó o caducó: cada uno abre una sola sesión. Ejecuta "
                    + "<code>interpay web</code> otra vez y abre el enlace nuevo."
            )
            : (
                "Login link not valid",
                "This login link is wrong, was already used or has expired: each one opens a single session. Run "
                    + "<code>interpay web</code> again and open the new link."
            )
        let html = """
            <!doctype html>
            <html lang="\(language)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1"><title>InterPay: \(title)</title></head>
            <body><main><h1>\(title)</h1><p>\(text)</p></main></body></html>

            """
        return Response(
            status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// One method call: the result as the body, or `{"error": {code, message, data}}` with a matching status.
    static func call(_ handler: any ControlHandler, _ method: String, params: JSONValue?) async -> Response {
        do {
            return json(.ok, bytes: try await handler.handle(method: method, params: params).bytes)
        } catch {
            return errorResponse(error)
        }
    }

    /// The HTTP status for a JSON-RPC error code.
    public static func status(for code: RPCError.Code) -> HTTPResponse.Status {
        switch code {
        case .parseError, .invalidRequest, .invalidParams: .badRequest
        case .methodNotFound, .notFound: .notFound
        case .conflict: .conflict
        case .forbidden: .forbidden
        case .peerUnreachable: .badGateway
        case .unavailable: .serviceUnavailable
        default: .internalServerError
        }
    }

    static func errorResponse(_ error: RPCError) -> Response {
        var object: [String: JSONValue] = ["code": .int(error.code.rawValue), "message": .string(error.message)]
        if let data = error.data { object["data"] = data }
        return json(status(for: error.code), .object(["error": .object(object)]))
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        json(status, bytes: value.jsonBytes)
    }

    /// JSON text, already written, as the body.
    static func json(_ status: HTTPResponse.Status, bytes: [UInt8]) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The app's page in `language` (Spanish or English; the page lets the user switch). After a login it carries
    /// the session in `<meta name="interpay-session">`, which the page's script keeps in its origin's storage and
    /// sends as `Authorization: Bearer`: storage, unlike cookies, is kept apart by port, so no server on another port
    /// of the host ever receives it (SECURITY.md W-COOKIE).
    static func page(language: String, session: String?) throws -> Response {
        guard var page = WebAssets.text(of: "index.html") else { throw HTTPError(.notFound) }
        if language != "en" { page = page.replacing(#"<html lang="en">"#, with: #"<html lang="\#(language)">"#) }
        // The session is text of `WebToken.generate()`: hex digits, nothing to escape in HTML.
        if let session {
            let meta = #"<meta name="interpay-session" content="\#(session)">"#
            page = page.replacing("<head>\n", with: "<head>\n\(meta)\n")
        }
        var response = try asset("index.html")
        response.body = .init(byteBuffer: ByteBuffer(string: page))
        if session != nil { response.headers[.cacheControl] = "no-store" }
        return response
    }

    static func asset(_ name: String) throws -> Response {
        guard let file = WebAssets.files[name] else { throw HTTPError(.notFound) }
        return Response(
            status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: file.body)))
    }

    /// How long a request's body may take to arrive once its head is in: a body dribbled a byte at a time held its
    /// connection (one of `WebService.maxConnections`) for as long as the client liked.
    static let bodyDeadline = TimeAmount.seconds(10)

    /// The request's body, at most `limit` bytes, within `bodyDeadline`; past it the connection is closed, which
    /// ends the read with an error (and the request with it).
    static func collectBody(
        _ request: Request, context: WebRequestContext, upTo limit: Int, within deadline: TimeAmount = bodyDeadline
    ) async throws -> ByteBuffer {
        let channel = context.channel
        let timer = channel.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
        defer { timer.cancel() }
        var request = request
        return try await request.collectBody(upTo: limit)
    }

    /// Event streams open at once at most: each holds one of `WebService`'s connections for as long as its page is
    /// open, so that open tabs (or a holder of a session) could otherwise take them all.
    static let maxEventStreams = 16

    /// The daemon's events as Server-Sent Events (`data: {json}`), with a comment line every `heartbeat` so that a
    /// closed page is noticed; the stream ends when the daemon stops. Beyond `maxEventStreams` open ones, a stream
    /// ends at once (the page tries again later), freeing its connection.
    static func events(handler: any ControlHandler, heartbeat: Duration, streams: StreamCount) -> Response {
        let body = ResponseBody { writer in
            guard streams.enter(atMost: maxEventStreams) else {
                try await writer.write(ByteBuffer(string: ": too many event streams open\nretry: 10000\n\n"))
                try await writer.finish(nil)
                return
            }
            defer { streams.leave() }
            let stream = handler.events()
            let (lines, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(256))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in stream { sink.yield("data: \(event.jsonText)\n\n") }
                    sink.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: heartbeat)
                        sink.yield(": keepalive\n\n")
                    }
                }
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                for await line in lines { try await writer.write(ByteBuffer(string: line)) }
                group.cancelAll()
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}

/// How many event streams are open.
final class StreamCount: Sendable {
    private let count = Mutex(0)

    /// Counts one more stream, unless `limit` are open: false then.
    func enter(atMost limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Counts one stream fewer.
    func leave() { count.withLock { $0 -= 1 } }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
