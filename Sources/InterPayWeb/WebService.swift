import Glibc
import Hummingbird
import HummingbirdCore
public import InterPayContract
public import Logging
public import NIOCore
public import ServiceLifecycle

/// Serves the web app (`WebApp`) on a loopback address until graceful shutdown.
public struct WebService: Service, CustomStringConvertible {
    let address: WebListenAddress
    let handler: any ControlHandler
    let access: WebAccess
    let logger: Logger
    let onListening: @Sendable (Int) -> Void
    let onFailure: @Sendable (WebServiceError) -> Void

    let maxConnections: Int
    let maxConnectionsPerClient: Int
    let idleTimeout: TimeAmount

    /// Connections served at once (by default); further ones wait in the listen backlog (the kernel's, not the
    /// daemon's descriptors). Browsers open six per host; the rest is room for `curl` and a second window.
    public static let maxConnections = 32
    /// Connections one client (one local user: `WebClient`) holds at once (by default): half of `maxConnections`,
    /// so another local user holding all theirs leaves the owner's browser its six and more (SECURITY.md W-HOLD).
    public static let maxConnectionsPerClient = 16
    /// How long a connection may sit without a request in progress, or dribble a request's head, before it is
    /// closed (by default). A response being written (the live events stream) is never cut by it. Before, a local
    /// user holding idle connections could take every descriptor of the daemon, peers' sessions included.
    public static let idleTimeout = TimeAmount.seconds(10)

    /// A service answering on `address` with `handler`'s methods, letting in whoever has `access`'s token;
    /// `onListening` is told the bound port, `onFailure` why the app cannot be served.
    public init(
        address: WebListenAddress, handler: any ControlHandler, access: WebAccess, logger: Logger,
        onListening: @escaping @Sendable (Int) -> Void,
        onFailure: @escaping @Sendable (WebServiceError) -> Void = { _ in },
        maxConnections: Int = Self.maxConnections, maxConnectionsPerClient: Int = Self.maxConnectionsPerClient,
        idleTimeout: TimeAmount = Self.idleTimeout
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.idleTimeout = idleTimeout
        self.address = address
        self.handler = handler
        self.access = access
        self.logger = logger
        self.onListening = onListening
        self.onFailure = onFailure
    }

    /// Runs the server until graceful shutdown. When it cannot listen (its port taken, perhaps by another local
    /// user), it logs why, tells `onFailure`, and waits for the shutdown without serving: the web app is a view of
    /// the daemon, and its failure must not stop the payments (a service that throws ends the whole group).
    public func run() async throws {
        let access = self.access
        let logger = self.logger
        let onListening = self.onListening
        let address = self.address
        let clients = WebClientCounts(limit: maxConnectionsPerClient)
        let application = Application(
            router: WebApp.router(handler: handler, access: access),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [WebClientBoundHandler(counts: clients)], idleTimeout: idleTimeout)),
            configuration: .init(
                address: .hostname(address.host, port: address.port), reuseAddress: true,
                availableConnectionsDelegate: MaximumAvailableConnections(maxConnections)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                access.port = port
                onListening(port)
                logger.info(
                    "web app ready",
                    metadata: ["address": "\(WebListenAddress.display(host: address.host, port: port))"])
            },
            logger: logger)
        do {
            try await application.run()
        } catch {
            let failure = WebServiceError.cannotServe(address: address.description, reason: Self.reason(error))
            logger.error("the web app is not served; the daemon runs on without it", metadata: ["error": "\(failure)"])
            onFailure(failure)
            // Only cancellation ends the wait, and then the service is done anyway.
            try? await gracefulShutdown()
        }
    }

    public var description: String { "WebService" }

    /// Why serving failed, in words: a system call's error as the system says it ("Address already in use"), not
    /// NIO's text of the call (`bind(descriptor:ptr:bytes:)`).
    static func reason(_ error: any Error) -> String {
        if let error = error as? IOError {
            let words = String(cString: strerror(error.errnoCode))
            return error.errnoCode == EADDRINUSE ? "\(words) (another program listens on it)" : words
        }
        return String(describing: error)
    }
}

/// Why the web app cannot be served.
public enum WebServiceError: Error, Sendable, CustomStringConvertible {
    /// Binding or serving failed (e.g. the port is taken).
    case cannotServe(address: String, reason: String)

    public var description: String {
        switch self {
        case .cannotServe(let address, let reason):
            "cannot serve the web app on \(address): \(reason) (choose another with --web ADDR:PORT, or --no-web)"
        }
    }
}

extension WebListenAddress {
    /// `HOST:PORT` for a host and port, brackets around IPv6.
    static func display(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The URL of the web app for a bound port, with a one-time login code (`WebAccess.issueLoginCode`).
    public func loginURL(port: Int, code: String) -> String {
        "http://\(Self.display(host: host, port: port))/login?code=\(code)"
    }
}
