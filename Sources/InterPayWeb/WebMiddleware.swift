public import Hummingbird

/// A refused request (any 4xx answer: a wrong `Host`, a cross-origin or unauthenticated call, an unknown path) ends
/// its connection: the answer goes out, `Connection: close`, and the rest of the request body is never read.
///
/// Hummingbird reads a request's body to its end before it reads the next request, whether or not the responder
/// read it, and holds the connection meanwhile: a client without the token that sent a head with a body length and
/// then dribbled the body a byte every 4 s kept its connection for as long as it liked, and 40 such clients held
/// every connection the web app serves (`WebService.maxConnections`), so the owner's requests went unanswered
/// (SECURITY.md W-DRIBBLE). Closing the connection's input ends that read at once. A body the app does read has a
/// deadline of its own (`WebApp.bodyDeadline`).
public struct RefusalMiddleware: RouterMiddleware {
    public typealias Context = WebRequestContext

    /// The middleware.
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            var response = try await next(request, context)
            if (400..<500).contains(response.status.code) {
                response.headers[.connection] = "close"
                context.channel.close(mode: .input, promise: nil)
            }
            return response
        } catch {
            context.channel.close(mode: .input, promise: nil)
            throw error
        }
    }
}

/// The headers every answer carries, errors included: a strict Content-Security-Policy (scripts, styles, images and
/// connections from this origin only; no framing), `nosniff`, no referrer, and no caching of API answers. No CORS
/// header is ever sent, so no other origin can read an answer.
public struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The policy sent with every answer.
    public static var contentSecurityPolicy: String {
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    }

    /// Headers with no name of their own in HTTPTypes: no framing by older browsers, no referrer.
    static var extraHeaders: [(String, String)] { [("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer")] }

    /// The middleware.
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        for (name, value) in Self.extraHeaders {
            if let field = HTTPFields.Element.Name(name) { response.headers[field] = value }
        }
        // Nothing is cached but what says otherwise (the page and its assets, `no-cache`); the page a login answers
        // says `no-store` itself.
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

/// Lets a request through only when it passes two checks, in this order (the credential check follows, on the routes
/// under `/api/`: `CredentialMiddleware`):
///
/// - Host: a request whose `Host` is not this server's loopback name and port is refused with 421 (Misdirected
///   Request): a page on another site whose name resolves to 127.0.0.1 (DNS rebinding) gets nothing.
/// - Origin: any state-changing request (anything but GET and HEAD), whatever its path, is refused with 403 unless
///   its `Origin` is this server's own. A request without `Origin` passes only when it carries a credential in
///   `Authorization` (a script or `curl`; a browser always sends `Origin` on such requests, and another site cannot
///   set `Authorization` without CORS, which this server never grants).
public struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: WebAccess

    /// Checks against `access`.
    public init(access: WebAccess) { self.access = access }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try checkHost(request)
        try checkOrigin(request)
        return try await next(request, context)
    }

    private func checkHost(_ request: Request) throws {
        guard access.isAllowedHost(request.head.authority) else {
            throw HTTPError(.init(code: 421, reasonPhrase: "Misdirected Request"), message: "wrong Host")
        }
    }

    private func checkOrigin(_ request: Request) throws {
        guard request.method != .get, request.method != .head else { return }
        let origin = request.headers[.origin]
        let allowed =
            origin == nil
            ? Self.bearer(request).map { access.isCredential($0) } ?? false
            : access.isSameOrigin(origin, authority: request.head.authority)
        guard allowed else { throw HTTPError(.forbidden, message: "cross-origin request refused") }
    }

    /// The token of an `Authorization: Bearer` header, if any.
    static func bearer(_ request: Request) -> Substring? {
        guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        return value.dropFirst("bearer ".count).drop { $0 == " " }
    }
}

/// Lets a request through only with a credential: `Authorization: Bearer` with the token or a session `/login` opened
/// (401 otherwise). The router adds it to the routes under `/api/`; the page, its assets and `/login` are open (they
/// hold nothing secret, and `/login` checks the code it is given). Cookies are never read: a browser sends them to
/// every port of the host, so a server another local user runs on 127.0.0.1 would receive them (SECURITY.md
/// W-COOKIE).
public struct CredentialMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: WebAccess

    /// Checks against `access`.
    public init(access: WebAccess) { self.access = access }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let bearer = AccessMiddleware<Context>.bearer(request), access.isCredential(bearer) else {
            // Answered before the body is read; `RefusalMiddleware` ends the connection after the answer.
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                message: "open the web app with the URL that 'interpay web' prints")
        }
        return try await next(request, context)
    }
}
