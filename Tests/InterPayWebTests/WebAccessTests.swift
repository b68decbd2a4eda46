import Foundation
import Hummingbird
import InterPayContract
import InterPayControl
import Testing

@testable import InterPayWeb

/// A control method table that answers `status`, echoes params, fails on demand, and has a fixed event feed.
struct FakeHandler: ControlHandler {
    var feed: [JSONValue] = []

    func handle(method: String, params: JSONValue?) async throws(RPCError) -> EncodedJSON {
        switch method {
        case "status": return EncodedJSON(["name": "alice", "shortID": "ABCD-EFGH", "webPort": 7780])
        case "send": return EncodedJSON(["echo": params ?? .null])
        case "accept": throw RPCError.notFound("payment 'zzzz'")
        default: throw RPCError.methodNotFound(method)
        }
    }

    func events() -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        for event in feed { continuation.yield(event) }
        continuation.finish()
        return stream
    }
}

/// The access checks of the web app: token, session, `Host`, `Origin`, and the headers on every answer.
@Suite("Web app access")
struct WebAccessTests {
    static let token = WebToken.generate()

    /// The router's client always says `Host: localhost`, i.e. port 80: the server is told it listens there.
    static let access = WebAccess(token: token, port: 80)
    /// A session opened with the token, as `/login?token=` opens one.
    static let session = access.openSession(code: token) ?? "none"

    static func client(port: Int = 80, handler: FakeHandler = FakeHandler()) -> RouterClient {
        RouterClient(
            router: WebApp.router(
                handler: handler, access: port == 80 ? access : WebAccess(token: token, port: port)))
    }

    static let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
    /// The session as the page sends it.
    static let sessionBearer: HTTPFields = [.authorization: "Bearer \(session)"]
    /// The same session in a cookie, as a browser would send it to any port of the host: never read.
    static let cookie: HTTPFields = [.cookie: "interpay_session=\(session)"]

    /// The session in a page `/login` answered, from its `<meta name="interpay-session">`.
    static func session(inPage page: String) -> String? {
        guard let start = page.range(of: #"<meta name="interpay-session" content=""#) else { return nil }
        return String(page[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test("no credential: 401 under /api/; the page and its assets are open; security headers, no CORS header")
    func noToken() async throws {
        let client = Self.client()
        for (path, status) in [
            ("/api/status", HTTPResponse.Status.unauthorized), ("/api/events", .unauthorized), ("/", .ok),
            ("/assets/app.js", .ok),
        ] {
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == status, "\(path)")
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
                #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
        }
        try await client.execute(uri: "/", method: .get) { response in
            #expect(!String(buffer: response.body).contains("interpay-session"), "the page alone holds no session")
        }
    }

    @Test("a wrong token or session, or an empty one: 401")
    func wrongToken() async throws {
        let client = Self.client()
        for wrong in [WebToken.generate(), "", " ", String(Self.session.dropLast())] {
            try await client.execute(
                uri: "/api/status", method: .get, headers: [.authorization: "Bearer \(wrong)"]
            ) { #expect($0.status == .unauthorized, "\(wrong)") }
        }
    }

    @Test("GET /api/status answers the status method, by bearer token or by session")
    func status() async throws {
        let client = Self.client()
        for headers in [Self.bearer, Self.sessionBearer] {
            try await client.execute(uri: "/api/status", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "no-store")
                let body = try JSONValue(parsing: String(buffer: response.body))
                #expect(body["name"] == "alice")
                #expect(body["webPort"] == 7780)
            }
        }
    }

    @Test("/login trades the token for a session in the page it answers, never in a cookie; a wrong token gets none")
    func login() async throws {
        let client = Self.client()
        var session: String?
        try await client.execute(uri: "/login?token=\(Self.token)", method: .get) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.setCookie] == nil)
            #expect(response.headers[.cacheControl] == "no-store")
            session = Self.session(inPage: String(buffer: response.body))
        }
        let opened = try #require(session)
        #expect(opened != Self.token && WebToken.isWellFormed(opened))
        try await client.execute(
            uri: "/api/status", method: .get, headers: [.authorization: "Bearer \(opened)"]
        ) { #expect($0.status == .ok) }
        try await client.execute(uri: "/login?token=\(WebToken.generate())", method: .get) { response in
            #expect(response.status == .unauthorized)
            #expect(Self.session(inPage: String(buffer: response.body)) == nil)
        }
    }

    @Test("a login code works once and opens a session that is not the token (SECURITY.md W-TOKEN-ARGV)")
    func loginCode() async throws {
        let client = Self.client()
        let code = Self.access.issueLoginCode()
        var session: String?
        try await client.execute(uri: "/login?code=\(code)", method: .get) { response in
            #expect(response.status == .ok)
            session = Self.session(inPage: String(buffer: response.body))
        }
        let opened = try #require(session)
        #expect(opened != Self.token && opened != code)
        try await client.execute(
            uri: "/api/status", method: .get, headers: [.authorization: "Bearer \(opened)"]
        ) { #expect($0.status == .ok) }
        try await client.execute(uri: "/login?code=\(code)", method: .get) { response in
            #expect(response.status == .unauthorized, "a spent code opens nothing")
            #expect(response.headers[.contentType] == "text/html; charset=utf-8", "a page for the browser, not JSON")
            #expect(String(buffer: response.body).contains("Run <code>interpay web</code> again"))
            #expect(Self.session(inPage: String(buffer: response.body)) == nil)
        }
        try await client.execute(
            uri: "/login?code=\(code)", method: .get, headers: [.acceptLanguage: "es-MX,es;q=0.9"]
        ) { response in
            #expect(String(buffer: response.body).contains("Ejecuta <code>interpay web</code> otra vez"))
        }
        #expect(!Self.access.isOpenSession(code), "a code is not a session")
    }

    @Test("the credential check holds for every path the router matches to /api/, `//api/status` included")
    func pathVariants() async throws {
        // The router drops empty path segments; a check of the path's text (`hasPrefix("/api/")`) let these through.
        let client = Self.client()
        for path in ["//api/status", "//api/events", "/api//status", "///api/list"] {
            try await client.execute(uri: path, method: .get) { #expect($0.status == .unauthorized, "\(path)") }
        }
        var headers: HTTPFields = [.origin: "http://localhost", .contentType: "application/json"]
        try await client.execute(uri: "//api/send", method: .post, headers: headers, body: ByteBuffer(string: "{}")) {
            #expect($0.status == .unauthorized)
        }
        headers[.authorization] = "Bearer \(Self.session)"
        try await client.execute(uri: "//api/status", method: .get, headers: headers) {
            #expect($0.status == .ok, "the router does match the path: the check must be the route's")
        }
        try await client.execute(uri: "//login?token=\(Self.token)", method: .get) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "no-store", "a page holding a session is never cached")
        }
    }

    @Test("beyond the event streams allowed at once, one more ends at once and frees its connection")
    func eventStreamLimit() async throws {
        let streams = StreamCount()
        for _ in 0..<WebApp.maxEventStreams { #expect(streams.enter(atMost: WebApp.maxEventStreams)) }
        let client = RouterClient(
            router: WebApp.router(
                handler: FakeHandler(feed: [["event": "peer-up"]]), access: Self.access, heartbeat: .seconds(15),
                vendorScripts: [:], streams: streams))
        try await client.execute(uri: "/api/events", method: .get, headers: Self.sessionBearer) { response in
            let text = String(buffer: response.body)
            #expect(text.contains("too many event streams open"))
            #expect(!text.contains("data: "))
        }
        streams.leave()
        try await client.execute(uri: "/api/events", method: .get, headers: Self.sessionBearer) { response in
            #expect(String(buffer: response.body).contains("data: "))
        }
        #expect(streams.enter(atMost: WebApp.maxEventStreams), "the stream that ended counted itself out")
    }

    @Test("a cookie is never a credential, even one with an open session or the token (SECURITY.md W-COOKIE)")
    func cookiesAreNotRead() async throws {
        // A browser sends the cookies of 127.0.0.1 to every port of it: a server another local user runs there
        // would receive a session kept in one.
        let client = Self.client()
        for value in [Self.session, Self.token] {
            try await client.execute(
                uri: "/api/status", method: .get, headers: [.cookie: "interpay_session=\(value)"]
            ) { #expect($0.status == .unauthorized) }
        }
    }

    @Test("a Host that is not this server's loopback name and port: 421, token or not")
    func wrongHost() async throws {
        // Listening on 7780, the client's `Host: localhost` (port 80) is another server's name.
        let client = Self.client(port: 7780)
        try await client.execute(uri: "/api/status", method: .get, headers: Self.bearer) {
            #expect($0.status.code == 421)
        }
        let access = WebAccess(token: Self.token, port: 7780)
        #expect(access.isAllowedHost("127.0.0.1:7780"))
        #expect(access.isAllowedHost("localhost:7780"))
        #expect(access.isAllowedHost("[::1]:7780"))
        #expect(!access.isAllowedHost("evil.example:7780"))
        #expect(!access.isAllowedHost("127.0.0.1.nip.io:7780"))
        #expect(!access.isAllowedHost("127.0.0.1:7781"))
        #expect(!access.isAllowedHost("127.0.0.1"))
        #expect(!access.isAllowedHost(nil))
        #expect(!WebAccess(token: Self.token).isAllowedHost("127.0.0.1:0"))
        // Bound to another loopback address, that address is a name of this server too; others are not.
        let other = WebAccess(token: Self.token, host: "127.0.0.2", port: 7780)
        #expect(other.isAllowedHost("127.0.0.2:7780") && other.isAllowedHost("localhost:7780"))
        #expect(!other.isAllowedHost("127.0.0.3:7780"))
    }

    @Test("a cross-origin POST: 403 whatever its path, even with the token")
    func crossOrigin() async throws {
        let client = Self.client()
        for path in ["/api/send", "/api/nothing", "/login", "/"] {
            for origin in ["http://evil.example", "null", "http://localhost:8080"] {
                var headers = Self.sessionBearer
                headers[.origin] = origin
                try await client.execute(uri: path, method: .post, headers: headers) {
                    #expect($0.status == .forbidden, "\(path) from \(origin)")
                }
            }
        }
        // Without Origin and without a bearer credential (a cookie only): refused too.
        try await client.execute(uri: "/api/send", method: .post, headers: Self.cookie) {
            #expect($0.status == .forbidden)
        }
        try await client.execute(uri: "/api/send", method: .options, headers: [.origin: "http://evil.example"]) {
            #expect($0.status == .forbidden)
            #expect($0.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("a same-origin POST calls the method with the JSON params")
    func sameOriginPost() async throws {
        let client = Self.client()
        var headers = Self.sessionBearer
        headers[.origin] = "http://localhost"
        headers[.contentType] = "application/json"
        try await client.execute(
            uri: "/api/send", method: .post, headers: headers,
            body: ByteBuffer(string: #"{"peer":"bob","amount":"12.50","currency":"MXN"}"#)
        ) { response in
            #expect(response.status == .ok)
            let body = try JSONValue(parsing: String(buffer: response.body))
            #expect(body["echo"]?["amount"] == "12.50")
        }
        // A script with the bearer token needs no Origin.
        try await client.execute(
            uri: "/api/send", method: .post, headers: Self.bearer, body: ByteBuffer(string: "{}")
        ) { #expect($0.status == .ok) }
    }

    @Test("errors: RPC codes become HTTP statuses; web and export are not exposed; GET is for reads")
    func errors() async throws {
        let client = Self.client()
        try await client.execute(
            uri: "/api/accept", method: .post, headers: Self.bearer,
            body: ByteBuffer(string: #"{"payment":"zzzz"}"#)
        ) { response in
            #expect(response.status == .notFound)
            let body = try JSONValue(parsing: String(buffer: response.body))
            #expect(body["error"]?["code"] == .int(RPCError.Code.notFound.rawValue))
        }
        for method in ["web", "export", "nothing"] {
            try await client.execute(uri: "/api/\(method)", method: .post, headers: Self.bearer) {
                #expect($0.status == .notFound, "\(method)")
            }
        }
        try await client.execute(uri: "/api/send", method: .get, headers: Self.bearer) {
            #expect($0.status == .methodNotAllowed)
        }
        try await client.execute(
            uri: "/api/send", method: .post, headers: Self.bearer, body: ByteBuffer(string: "{nope")
        ) { #expect($0.status == .badRequest) }
        #expect(WebApp.methods["web"] == nil)
        #expect(WebApp.methods["export"] == nil)
    }

    @Test("/api/events streams the daemon's events as Server-Sent Events")
    func events() async throws {
        let handler = FakeHandler(feed: [
            ["event": "request-received", "payment": ["id": "p1"]], ["event": "peer-up"],
        ])
        let client = Self.client(handler: handler)
        try await client.execute(uri: "/api/events", method: .get, headers: Self.sessionBearer) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/event-stream")
            let text = String(buffer: response.body)
            let data = text.split(separator: "\n").filter { $0.hasPrefix("data: ") }
            #expect(data.count == 2)
            let first = try JSONValue(parsing: String(data[0].dropFirst(6)))
            #expect(first["event"] == "request-received")
        }
    }

    @Test("the pages are served, Chart.js from the system when installed")
    func pages() async throws {
        let client = Self.client()
        try await client.execute(uri: "/", method: .get, headers: [:]) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: response.body).contains("/assets/app.js"))
        }
        for name in ["app.js", "i18n.js", "style.css", "icon.svg"] {
            try await client.execute(uri: "/assets/\(name)", method: .get, headers: [:]) {
                #expect($0.status == .ok, "\(name)")
            }
        }
        try await client.execute(uri: "/assets/../../etc/passwd", method: .get, headers: [:]) {
            #expect($0.status == .notFound)
        }
        let missing = RouterClient(
            router: WebApp.router(
                handler: FakeHandler(), access: Self.access, vendorScripts: ["chart.js": ["/nonexistent/chart.js"]]))
        for name in ["chart.js", "passwd"] {
            try await missing.execute(uri: "/vendor/\(name)", method: .get, headers: [:]) {
                #expect($0.status == .notFound)
            }
        }
    }

    @Test("every reason the daemon gives an error has words in each language but English")
    func errorWords() throws {
        let text = try #require(WebAssets.text(of: "i18n.js"))
        let start = try #require(text.range(of: "export const errorWords"))
        let spanish = try #require(text[start.upperBound...].range(of: "es: {"))
        let words = text[spanish.upperBound...]
        for reason in ControlErrorReason.allCases {
            #expect(words.contains("\n    \(reason.rawValue): "), "no Spanish words for \(reason.rawValue)")
        }
        for status in [401, 403, 413, 429] { #expect(words.contains("status\(status):")) }
    }

    @Test("the page's language comes from Accept-Language")
    func language() async throws {
        #expect(WebApp.language(acceptLanguage: "es-MX,es;q=0.9,en;q=0.8") == "es")
        #expect(WebApp.language(acceptLanguage: "en-US,en;q=0.9,es;q=0.8") == "en")
        #expect(WebApp.language(acceptLanguage: "fr-FR, es;q=0.5") == "es")
        #expect(WebApp.language(acceptLanguage: "de") == "en")
        #expect(WebApp.language(acceptLanguage: nil) == "en")
        let client = Self.client()
        var headers = HTTPFields()
        headers[.acceptLanguage] = "es-MX,es;q=0.9"
        try await client.execute(uri: "/", method: .get, headers: headers) { response in
            #expect(String(buffer: response.body).contains(#"<html lang="es">"#))
        }
    }

    @Test("the embedded pages are the files in Assets/, as the build-tool plugin compiled them in")
    func embeddedAssetsAreCurrent() throws {
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "../../Sources/InterPayWeb/Assets").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: assets.path).sorted()
        #expect(names == WebAssets.names)
        for name in names {
            let text = try String(contentsOf: assets.appending(path: name), encoding: .utf8)
            #expect(WebAssets.text(of: name) == text.trimmingSuffixNewlines, "\(name)")
        }
    }
}

extension String {
    /// The text without its final newlines (the embedded copy has none).
    var trimmingSuffixNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
