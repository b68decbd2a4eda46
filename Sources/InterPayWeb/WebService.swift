import Hummingbird
public import InterPayControl
public import Logging
import NIOCore
public import ServiceLifecycle

/// Serves the web app (`WebApp`) on a loopback address until graceful shutdown.
public struct WebService: Service, CustomStringConvertible {
    let address: WebListenAddress
    let handler: any ControlHandler
    let access: WebAccess
    let logger: Logger
    let onListening: @Sendable (Int) -> Void

    /// A service answering on `address` with `handler`'s methods, letting in whoever has `access`'s token;
    /// `onListening` is told the bound port.
    public init(
        address: WebListenAddress, handler: any ControlHandler, access: WebAccess, logger: Logger,
        onListening: @escaping @Sendable (Int) -> Void
    ) {
        self.address = address
        self.handler = handler
        self.access = access
        self.logger = logger
        self.onListening = onListening
    }

    /// Runs the server; throws `WebServiceError` when it cannot listen.
    public func run() async throws {
        let access = self.access
        let logger = self.logger
        let onListening = self.onListening
        let address = self.address
        let application = Application(
            router: WebApp.router(handler: handler, access: access),
            configuration: .init(address: .hostname(address.host, port: address.port), reuseAddress: true),
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
            throw WebServiceError.cannotServe(address: address.description, reason: String(describing: error))
        }
    }

    public var description: String { "WebService" }
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

    /// The URL of the web app for a bound port, with the token that logs in.
    public func loginURL(port: Int, token: String) -> String {
        "http://\(Self.display(host: host, port: port))/login?token=\(token)"
    }
}
