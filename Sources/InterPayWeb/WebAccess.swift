import Synchronization

/// What the access checks need to know: the token, and the port the server is bound to (known only once it is
/// listening when the configured port is 0).
public final class WebAccess: Sendable {
    /// The access token (see `WebToken`).
    public let token: String
    /// The loopback names a request's `Host` may use: `127.0.0.1`, `localhost`, `[::1]`, and the address bound.
    let names: [String]
    private let boundPort = Mutex<Int>(0)

    /// Access with `token`, for a server bound to `host` (a numeric loopback address) and `port` (0 until it is
    /// known).
    public init(token: String, host: String = "127.0.0.1", port: Int = 0) {
        self.token = token
        let bound = host.contains(":") ? "[\(host)]" : host
        names = ["127.0.0.1", "localhost", "[::1]"] + (["127.0.0.1", "[::1]"].contains(bound) ? [] : [bound])
        boundPort.withLock { $0 = port }
    }

    /// The port the server listens on (0 before it listens).
    public var port: Int {
        get { boundPort.withLock { $0 } }
        set { boundPort.withLock { $0 = newValue } }
    }

    /// Whether a request's `Host` (its authority) names this server by a loopback name: `127.0.0.1`, `localhost`,
    /// `[::1]` or the address bound, with our port (or none when the port is 80). Anything else, e.g. a name an attacker's DNS points at
    /// 127.0.0.1 (DNS rebinding), is refused.
    public func isAllowedHost(_ authority: String?) -> Bool {
        guard let authority = authority?.lowercased(), !authority.isEmpty else { return false }
        let port = self.port
        guard port != 0 else { return false }
        for name in names {
            if authority == "\(name):\(port)" { return true }
            if port == 80, authority == name { return true }
        }
        return false
    }

    /// Whether an `Origin` header is this server's own origin for the `Host` the request used.
    public func isSameOrigin(_ origin: String?, authority: String?) -> Bool {
        guard let origin = origin?.lowercased(), let authority = authority?.lowercased() else { return false }
        return isAllowedHost(authority) && origin == "http://\(authority)"
    }

    // MARK: Login codes and sessions

    /// How long a login code (`issueLoginCode`) may wait to be used.
    public static let loginCodeLifetime: Duration = .seconds(120)
    /// How long a browser session lasts after its login.
    public static let sessionLifetime: Duration = .seconds(12 * 3_600)
    /// Codes waiting and sessions open at most; beyond, the oldest go.
    static let maxLoginCodes = 16
    static let maxSessions = 64

    private struct Logins {
        var codes: [String: ContinuousClock.Instant] = [:]
        var sessions: [String: ContinuousClock.Instant] = [:]
    }
    private let logins = Mutex(Logins())

    /// A new code that logs a browser in once, within `loginCodeLifetime`: what `interpay web` puts in the URL it
    /// opens, instead of the token. A URL passed to `xdg-open` stands in its command line, which every local user may
    /// read in `/proc`; the token never expires, a code is spent by the browser at once.
    public func issueLoginCode() -> String {
        let code = WebToken.generate()
        let now = ContinuousClock.now
        logins.withLock { logins in
            logins.codes = logins.codes.filter { $0.value > now }
            Self.keepNewest(&logins.codes, atMost: Self.maxLoginCodes - 1)
            logins.codes[code] = now + Self.loginCodeLifetime
        }
        return code
    }

    /// Spends a login code (or accepts the token itself) and opens a session: its ID, which the page sends as
    /// `Authorization: Bearer`, or nil when the code is unknown, spent or expired. The page never holds the token.
    public func openSession(code: String) -> String? {
        let now = ContinuousClock.now
        return logins.withLock { logins -> String? in
            let valid: Bool
            if let expiry = logins.codes.removeValue(forKey: code) {
                valid = expiry > now
            } else {
                valid = WebToken.matches(code, token)
            }
            guard valid else { return nil }
            let session = WebToken.generate()
            logins.sessions = logins.sessions.filter { $0.value > now }
            Self.keepNewest(&logins.sessions, atMost: Self.maxSessions - 1)
            logins.sessions[session] = now + Self.sessionLifetime
            return session
        }
    }

    /// Whether `session` is a session `openSession` opened that has not expired.
    public func isOpenSession(_ session: some StringProtocol) -> Bool {
        let now = ContinuousClock.now
        return logins.withLock { ($0.sessions[String(session)] ?? now) > now }
    }

    /// Whether a bearer credential lets a request in: the token, or a session that is open.
    public func isCredential(_ bearer: some StringProtocol) -> Bool {
        WebToken.matches(bearer, token) || isOpenSession(bearer)
    }

    private static func keepNewest(_ entries: inout [String: ContinuousClock.Instant], atMost limit: Int) {
        guard entries.count > limit else { return }
        let kept = entries.sorted { $0.value > $1.value }.prefix(limit)
        entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }
}
