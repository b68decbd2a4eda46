import Foundation
import InterPayContract
import InterPayControl
import InterPayCore
import InterPayDiscovery
import InterPayEngine
import InterPayMetrics
import InterPayRates
import InterPayStore
import InterPayTransport
import InterPayWeb
public import Logging
import Prometheus
public import ServiceLifecycle
import Synchronization

/// Builds the daemon's services, in dependency order, from a configuration.
///
/// Opening the identity and the ledger happens here, before anything runs, so that a broken state directory is
/// reported at once; nothing starts until the `ServiceGroup` runs the services.
public enum Daemon {
    /// The services of `interpayd`, in the order they start, each with how its end is taken: the state
    /// directory's lock first (`StateDirectoryLock`), then the peers (sessions, the once-a-second work, the event
    /// feed, discovery), ledger retention, the web app, the control socket, and systemd notification last.
    /// Shutdown runs in reverse: systemd hears `STOPPING=1` first, the socket goes away, discovery withdraws the
    /// advertisement, and the peers are told goodbye last.
    public static func services(
        configuration: DaemonConfiguration, environment: [String: String], logger: Logger
    ) throws(DaemonError) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        // Before anything reads the directory: one daemon per state directory, and only this user's.
        let lock = try StateDirectoryLock.claim(configuration.stateDirectory, socketPath: configuration.socketPath)
        // Metrics first: what the node's parts make at their start goes to the registry only after the bootstrap.
        var metrics: (address: WebListenAddress, registry: PrometheusCollectorRegistry, token: String)?
        if let address = configuration.metricsListen {
            do {
                let token = try WebToken.loadOrCreate(atPath: configuration.metricsTokenPath, groupMayRead: true)
                metrics = (address, DaemonMetrics.bootstrap(), token)
            } catch {
                throw .metrics(error.description)
            }
        }
        let identity: Identity
        do {
            identity = try Identity.loadOrCreate(in: configuration.stateDirectory)
        } catch {
            throw .transport(error.description)
        }
        let database: AppDatabase
        do {
            database = try AppDatabase(path: configuration.databasePath)
        } catch {
            throw .storage(error.description)
        }
        let provider: ExchangeRateAPIProvider
        do {
            provider = try ExchangeRateAPIProvider(
                client: CurlHTTPClient(
                    version: configuration.version, connectTimeout: min(.seconds(10), configuration.ratesTimeout),
                    timeout: configuration.ratesTimeout),
                urlTemplate: configuration.ratesURLTemplate, apiKey: configuration.ratesAPIKey)
        } catch {
            throw .rates(error.description)
        }
        var base: CurrencyCode
        do throws(MoneyError) {
            base = try CurrencyCode(Conversions.defaultBase)
        } catch {
            throw .rates(error.description)
        }
        if let preferred = configuration.preferredCurrency { base = preferred }
        // The currency the user chose at run time (`interpay currency`) wins over the configuration's.
        let stored: CurrencyCode?
        do {
            // A stored code that no longer reads as a currency is ignored: the configuration's counts then.
            stored = try database.preferenceAtStartup(.preferredCurrency).flatMap { try? CurrencyCode($0) }
        } catch {
            throw .storage(error.description)
        }
        let conversions = Conversions(
            rates: RatesService(
                cache: LedgerRatesCache(database: database), provider: provider, base: base, logger: logger),
            preference: PreferredCurrency(configured: configuration.preferredCurrency, stored: stored), logger: logger)
        var options = Node.Options(
            name: configuration.name,
            transport: TransportConfiguration(
                displayName: configuration.name, host: configuration.listenHost, port: configuration.port,
                capabilities: [PaymentMessage.Pairing.capability]
                    // Refunds carry a refund receipt: they come with receipts.
                    + (configuration.receipts
                        ? [PaymentMessage.receiptsCapability, PaymentMessage.refundsCapability] : [])
                    + (configuration.subscriptions ? [PaymentMessage.subscriptionsCapability] : [])
                    + (configuration.bills ? [BillLink.capability] : []),
                agent: "interpayd/\(configuration.version)", handshakeTimeout: configuration.handshakeTimeout,
                keepaliveInterval: configuration.keepaliveInterval, maxFrameSize: configuration.maxFrameSize,
                maxUnauthenticated: configuration.maxUnauthenticated, maxSessions: configuration.maxSessions,
                maxSessionsPerAddress: configuration.maxSessionsPerAddress))
        // Without a preferred currency `cachedQuote` answers nil at once and nothing is stored with an acceptance.
        options.acceptanceQuote = { @Sendable money in await conversions.cachedQuote(money) }
        options.acceptFrom = configuration.acceptFrom
        options.requestLimits = .init(
            maxPending: configuration.maxPendingPerPeer, maxPerMinute: configuration.maxRequestsPerMinute)
        options.acceptTestPeriods = configuration.acceptTestPeriods
        let node = try Node(identity: identity, database: database, options: options, logger: logger)
        let shared = SharedState()
        let readiness = Readiness()
        let broadcaster = EventBroadcaster()
        let services = DaemonServices(
            configuration: configuration, node: node, shared: shared, broadcaster: broadcaster, conversions: conversions
        )
        let resolutionPriority = ResolutionPriority()
        var webAccess: WebAccess?
        if let address = configuration.webListen {
            do {
                webAccess = WebAccess(
                    token: try WebToken.loadOrCreate(in: configuration.stateDirectory), host: address.host)
            } catch {
                throw .web(error.description)
            }
        }
        let service = ControlMethods(services: services, startedAt: .now, webAccess: webAccess)
        let methods = ControlDispatcher(service)
        var controlConfiguration = ControlServerConfiguration(
            path: configuration.socketPath, groupID: configuration.socketGroupID)
        controlConfiguration.onLineTooLong = { Limit.controlLine.hit() }
        let control = ControlSocketService(
            server: ControlServer(configuration: controlConfiguration, handler: methods, logger: logger),
            broadcaster: broadcaster, readiness: readiness, logger: logger)
        let notify = NotifyService(
            notifier: SystemdNotifier(environment: environment), readiness: readiness,
            watchdog: SystemdNotifier.watchdogInterval(environment: environment), engine: node.engine, logger: logger)
        // The web app before the control socket: at shutdown the socket stops first and ends the event streams,
        // so that the web server's open event streams do not hold it up.
        var web: [any Service] = []
        if let address = configuration.webListen, let webAccess {
            web.append(
                WebService(
                    address: address, handler: methods, access: webAccess,
                    logger: logger,
                    onListening: { port in shared.webPort = port },
                    onFailure: { failure in shared.webFailure = failure.description }))
        }
        if let metrics {
            web.append(
                MetricsService(
                    address: metrics.address, registry: metrics.registry, token: metrics.token, logger: logger,
                    sample: { await DaemonMetrics.sample(services) }))
        }
        let retention = RetentionService(database: database, retention: configuration.ledgerRetention, logger: logger)
        var desktop: [any Service] = []
        if configuration.desktopNotifications,
            let notifications = GDBusNotifications.available(environment: environment)
        {
            desktop.append(
                DesktopNotificationService(
                    notifications: notifications, broadcaster: broadcaster,
                    answer: { payment, accept in
                        let params = PaymentParams(payment: payment)
                        _ = try await accept ? service.accept(params) : service.reject(params)
                    }, logger: logger))
        }
        // How each service's end is taken. The peer sessions ending or failing ends the daemon (a failed listener
        // with an error, for the supervisor to restart it); the others only end by graceful shutdown, and should
        // one end before it, the daemon shuts down gracefully rather than run on without it.
        func ending(
            _ service: any Service, failing: ServiceGroupConfiguration.ServiceConfiguration.TerminationBehavior
        )
            -> ServiceGroupConfiguration.ServiceConfiguration
        {
            .init(
                service: service, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: failing)
        }
        var peers: [any Service] = [
            PeerSessionsService(
                services: services, readiness: readiness, resolutionPriority: resolutionPriority, logger: logger),
            PeerTickService(services: services, logger: logger),
            PeerEventFeedService(services: services, logger: logger),
        ]
        if configuration.discoveryEnabled {
            peers.append(
                PeerDiscoveryService(
                    services: services, readiness: readiness, resolutionPriority: resolutionPriority, logger: logger))
        }
        let all: [any Service] =
            [StateDirectoryService(lock: lock), HangupService(logger: logger)] + peers + [retention] + desktop + web + [
                control, notify,
            ]
        return all.map { ending($0, failing: .cancelGroup) }
    }
}

/// What the services share at run time: the listening port and the discovery state, for `status`.
final class SharedState: Sendable {
    private let state = Mutex<(port: Int, discovery: String, webPort: Int, webFailure: String?)>(
        (0, "starting", 0, nil))

    /// Why the web app is not served, when it could not listen.
    var webFailure: String? {
        get { state.withLock { $0.webFailure } }
        set { state.withLock { $0.webFailure = newValue } }
    }

    /// The web app's bound port, 0 while it is not listening (or off).
    var webPort: Int {
        get { state.withLock { $0.webPort } }
        set { state.withLock { $0.webPort = newValue } }
    }

    /// The peer listener's bound port, 0 until it listens. Setting it wakes `listenerPort()`'s waiters.
    var port: Int {
        get { state.withLock { $0.port } }
        set {
            state.withLock { $0.port = newValue }
            guard newValue != 0 else { return }
            let waiting = portWaiters.withLock { waiters in
                defer { waiters = [:] }
                return waiters
            }
            for waiter in waiting.values { waiter.resume(returning: newValue) }
        }
    }

    private let portWaiters = Mutex<[Int: CheckedContinuation<Int?, Never>]>([:])
    private let nextWaiter = Atomic<Int>(0)

    /// The peer listener's port once it listens (`PeerSessionsService` binds it); nil when the task is cancelled
    /// first. Discovery advertises it: binding a second time from there gave a second listener nobody served.
    func listenerPort() async -> Int? {
        let key = nextWaiter.wrappingAdd(1, ordering: .relaxed).oldValue
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
                let bound = portWaiters.withLock { waiters -> Int? in
                    let port = self.port
                    if port != 0 { return port }
                    if Task.isCancelled { return -1 }
                    waiters[key] = continuation
                    return nil
                }
                if let bound { continuation.resume(returning: bound < 0 ? nil : bound) }
            }
        } onCancel: {
            portWaiters.withLock { $0.removeValue(forKey: key) }?.resume(returning: nil)
        }
    }

    var discovery: String {
        get { state.withLock { $0.discovery } }
        set { state.withLock { $0.discovery = newValue } }
    }
}
