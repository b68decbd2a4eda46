public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
public import Prometheus
public import ServiceLifecycle

/// Serves the daemon's metrics in Prometheus' text format at `/metrics` on a loopback address (`[metrics] listen`),
/// read-only, to whoever presents the metrics token (`Authorization: Bearer TOKEN`, what Prometheus sends from its
/// `authorization.credentials_file`).
///
/// Before each answer `sample` sets the gauges that are read rather than counted (sessions, queues, the process).
public struct MetricsService: Service, CustomStringConvertible {
    let address: WebListenAddress
    let registry: PrometheusCollectorRegistry
    let token: String
    let sample: @Sendable () async -> Void
    let logger: Logger
    let onListening: @Sendable (Int) -> Void

    /// Connections served at once: a scraper or two and an operator's `curl`; more wait in the kernel's backlog.
    public static let maxConnections = 4

    /// A service answering on `address` from `registry` to the holder of `token`.
    public init(
        address: WebListenAddress, registry: PrometheusCollectorRegistry, token: String, logger: Logger,
        sample: @escaping @Sendable () async -> Void, onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.address = address
        self.registry = registry
        self.token = token
        self.sample = sample
        self.logger = logger
        self.onListening = onListening
    }

    /// The router: `GET /metrics` with the token; anything else is 404, a missing or wrong token 401.
    public static func router(
        registry: PrometheusCollectorRegistry, token: String, sample: @escaping @Sendable () async -> Void
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("/metrics") { request, _ -> Response in
            let presented = request.headers[.authorization] ?? ""
            guard presented.hasPrefix("Bearer "), WebToken.matches(presented.dropFirst("Bearer ".count), token) else {
                return Response(
                    status: .unauthorized,
                    headers: [.wwwAuthenticate: "Bearer realm=\"interpayd metrics\"", .contentType: "text/plain"],
                    body: .init(byteBuffer: ByteBuffer(string: "the metrics token is needed\n")))
            }
            await sample()
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        return router
    }

    /// Serves until graceful shutdown. When it cannot listen it logs why and waits for the shutdown: metrics are a
    /// view of the daemon, and their failure must not stop the payments.
    public func run() async throws {
        let address = self.address
        let logger = self.logger
        let onListening = self.onListening
        let application = Application(
            router: Self.router(registry: registry, token: token, sample: sample),
            server: .http1(configuration: .init(idleTimeout: .seconds(10))),
            configuration: .init(
                address: .hostname(address.host, port: address.port), reuseAddress: true,
                availableConnectionsDelegate: MaximumAvailableConnections(Self.maxConnections)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                onListening(port)
                logger.info(
                    "metrics ready",
                    metadata: ["address": "\(WebListenAddress.display(host: address.host, port: port))"])
            },
            logger: logger)
        do {
            try await application.run()
        } catch {
            logger.error(
                "metrics are not served; the daemon runs on without them",
                metadata: ["address": "\(address)", "error": "\(WebService.reason(error))"])
            // Only cancellation ends the wait, and then the service is done anyway.
            try? await gracefulShutdown()
        }
    }

    public var description: String { "MetricsService" }
}
