public import InterPayCore
public import Logging

/// DNS-SD discovery of InterPay daemons through Avahi: advertises this daemon's `_interpay._tcp` instance and
/// reports the other daemons on the LAN as `DiscoveryEvent`s.
///
/// Nothing happens before `events()`; every call of `events()` starts an independent run (its own registration
/// and browse) that lasts until the consumer stops iterating. Instances whose TXT `id` is missing or invalid,
/// and our own instance (`id` equal to `ownPeerID`), are not reported.
///
/// When avahi-daemon (or D-Bus) is not reachable or goes away, discovery reports `unavailable` once, logs one
/// warning, and retries with `retry`; when it is back it reports `available`, registers again, and reports only
/// what changed meanwhile. All DNS-SD work runs on a private dispatch queue, never on a Swift concurrency thread.
public struct ServiceDiscovery: Sendable {
    /// The InterPay DNS-SD service type.
    public static let serviceType = "_interpay._tcp"

    /// What to advertise; nil to browse only.
    public let advertisement: Advertisement?
    /// Our peer ID, whose instances are never reported.
    public let ownPeerID: PeerID?
    /// The service type browsed and registered (another type only for tests).
    public let serviceType: String
    /// The delays between attempts to reach avahi-daemon.
    public let retry: RetryPolicy
    /// Where discovery logs: one warning per outage, instances at debug level.
    public let logger: Logger
    /// Instances whose resolution can wait for the others (peers that already hold a session with us).
    public let priority: ResolutionPriority

    /// Discovery for `advertisement` (nil to browse only), ignoring our own `ownPeerID`.
    public init(
        advertisement: Advertisement?, ownPeerID: PeerID?, serviceType: String = Self.serviceType,
        retry: RetryPolicy = .default, priority: ResolutionPriority = ResolutionPriority(), logger: Logger
    ) {
        self.priority = priority
        self.advertisement = advertisement
        self.ownPeerID = ownPeerID
        self.serviceType = serviceType
        self.retry = retry
        self.logger = logger
    }

    /// Starts registering (if `advertisement` is not nil) and browsing, and reports what happens.
    ///
    /// The stream ends when the consumer stops iterating (breaks out of the loop or its task is cancelled):
    /// its termination withdraws the registration, deallocates every DNS-SD ref and cancels every timer. An
    /// invalid advertisement is logged as an error and not registered; browsing still runs. A stream that is
    /// never iterated keeps running: always consume it.
    public func events() -> AsyncStream<DiscoveryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self, bufferingPolicy: .unbounded)
        let session = DiscoverySession(
            advertisement: advertisement, ownPeerID: ownPeerID, serviceType: serviceType, retry: retry,
            priority: priority, logger: logger, continuation: continuation)
        continuation.onTermination = { _ in session.stop() }
        session.start()
        return stream
    }
}
