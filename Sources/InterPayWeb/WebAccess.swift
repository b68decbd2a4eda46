import Synchronization

/// What the access checks need to know: the token, and the port the server is bound to (known only once it is
/// listening when the configured port is 0).
public final class WebAccess: Sendable {
    /// The name of the session cookie that carries the token.
    public static let cookieName = "interpay_session"

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
}
