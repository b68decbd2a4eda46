import CDNSSD
import Dispatch
import InterPayCore
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of `ServiceDiscovery.events()`: registers the advertisement, browses, resolves what it finds, and
/// reconnects when avahi-daemon goes away.
///
/// States: `idle` → `running` (browse and registration created) ⇄ `waiting` (avahi unreachable; a retry is
/// scheduled) → `stopped` (the consumer ended the stream). Every DNS-SD ref belongs to a `DNSServiceOperation`
/// that is cancelled (and its ref deallocated) when the session leaves `running` or no longer needs it.
///
/// `@unchecked Sendable`: every mutable property is used only on `queue`, a serial queue that also runs every
/// DNS-SD callback; the immutable ones are set in `init`.
final class DiscoverySession: @unchecked Sendable {
    /// How long a resolve plus address lookup may take before it counts as failed.
    static let resolutionTimeout: Duration = .seconds(10)
    /// Failed resolutions of one instance before giving up on it until it is announced again.
    static let maximumResolutionAttempts = 5
    /// After reconnecting, how long known peers may take to be browsed again before they count as gone.
    static let staleGrace: Duration = .seconds(10)
    /// How long a connection must last before an outage counts as new: a new warning, backoff from the start.
    static let stabilityPeriod: Duration = .seconds(10)
    /// When a newly reported instance is resolved once more, to catch a record replaced moments ago (see
    /// `scheduleConfirmation`); an instance first resolved this long after its announcement is not, as its records
    /// are the current ones.
    static let confirmationDelay: Duration = .seconds(3)
    /// How long an instance that is the other side's to resolve first (`ResolutionSide`) waits for that side's dial
    /// before it is resolved here all the same.
    static let otherSideDelay: Duration = .seconds(3)
    /// How long an IPv6 answer waits for an IPv4 one.
    static let ipv4Preference: Duration = .milliseconds(500)
    /// Alternative names tried when the name is taken on this host.
    static let maximumRenames = 50
    /// Resolutions running at once; the others wait their turn. Avahi's libdns_sd opens a D-Bus connection for every
    /// operation, and the system bus allows a user 256 connections: resolving every peer at once (a resolve, then an
    /// address lookup each) runs out of connections with about 80 peers, or with many daemons on one host. More at
    /// once is not faster either: each resolution makes Avahi ask the network, every avahi-daemon on the segment
    /// answers or reads the question, and with 16 at once 50 sandbox hosts on 2 cores resolved fewer peers in a
    /// minute (1–13 each) than with 2 (13–49); when the bus refuses a connection all the same, fewer run at once
    /// (`ResolutionSlots`).
    static let maximumConcurrentResolutions = 2

    /// The number of sessions not yet deinitialized, in this process (for tests).
    static var liveCount: Int { live.withLock { $0 } }
    private static let live = Mutex(0)

    /// Silences Avahi's "this program uses the Apple Bonjour compatibility layer" banner; done once, before the
    /// first DNS-SD call, and only when the variable is not set already.
    private static let quietAvahi: Void = {
        setenv("AVAHI_COMPAT_NOWARN", "1", 0)
    }()

    /// The advertisement in the form DNS-SD takes it.
    private struct Registration {
        var name: String
        var port: UInt16
        var txt: [UInt8]
    }

    private let queue: DispatchQueue
    private let serviceType: String
    private let ownPeerID: PeerID?
    private let retry: RetryPolicy
    private let logger: Logger
    private let priority: ResolutionPriority
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let advertisement: Registration?

    /// Whether avahi-daemon is reached, and what outages bring: the pure decider this session drives.
    private var connection = DiscoveryConnection()
    /// The connection's phase.
    private var phase: DiscoveryConnection.Phase { connection.phase }
    private var browse: DNSServiceOperation?
    private var registration: DNSServiceOperation?
    /// The name asked for and the one registered, and the renames a taken name brings: the pure decider the
    /// registration drives.
    private var names = RegistrationNames(maximumRenames: DiscoverySession.maximumRenames)
    /// Every instance seen since the last reconnect, plus the reported ones kept across an outage.
    private var services: [String: DiscoveredService] = [:]
    /// What the consumer was told about each instance: the pure decider the reporting drives.
    private var reports = ReportedPeers()
    /// Which instances are resolved now and which wait their turn (`maximumConcurrentResolutions` at most, fewer
    /// while the bus refuses connections): the pure decider this session drives.
    private var slots = ResolutionSlots(maximum: DiscoverySession.maximumConcurrentResolutions)
    private var retryItem: DispatchWorkItem?
    private var sweepItem: DispatchWorkItem?
    private var stableItem: DispatchWorkItem?

    init(
        advertisement: Advertisement?, ownPeerID: PeerID?, serviceType: String, retry: RetryPolicy,
        priority: ResolutionPriority, logger: Logger, continuation: AsyncStream<DiscoveryEvent>.Continuation
    ) {
        self.priority = priority
        self.queue = DispatchQueue(label: "InterPayDiscovery.session")
        self.serviceType = serviceType
        self.ownPeerID = ownPeerID
        self.retry = retry
        self.logger = logger
        self.continuation = continuation
        if let advertisement {
            do {
                try advertisement.validate()
                self.advertisement = TXTRecord.encode(peerID: advertisement.peerID, versions: advertisement.versions)
                    .map { Registration(name: advertisement.instanceName, port: UInt16(advertisement.port), txt: $0) }
            } catch {
                logger.error("not advertising on DNS-SD", metadata: ["reason": "\(error)"])
                self.advertisement = nil
            }
        } else {
            self.advertisement = nil
        }
        Self.live.withLock { $0 += 1 }
    }

    deinit {
        Self.live.withLock { $0 -= 1 }
    }

    /// Starts registering and browsing (asynchronously, on the session queue).
    func start() {
        Self.quietAvahi
        priority.whenSessionUp(owner: self) { [weak self] name in
            guard let self else { return }
            self.queue.async { self.sessionUp(named: name) }
        }
        queue.async { [self] in connect() }
    }

    /// Ends the session: every ref is deallocated, every timer cancelled, the stream finished.
    func stop() {
        queue.async { [self] in
            guard phase != .stopped else { return }
            priority.stopListening(owner: self)
            carryOut(connection.stop(), error: nil)
            for service in services.values { service.cancelWork() }
            services = [:]
            retryItem?.cancel()
            retryItem = nil
            continuation.finish()
            logger.debug("DNS-SD discovery stopped")
        }
    }

    // MARK: Connecting and outages

    private func connect() {
        guard connection.canConnect else { return }
        retryItem = nil
        do throws(DiscoveryError) {
            try startBrowsing()
            if let advertisement { try startRegistration(named: advertisement.name) }
        } catch {
            outage(error)
            return
        }
        carryOut(connection.connected(), error: nil)
        if !services.isEmpty { scheduleSweep() }
    }

    /// avahi-daemon is unreachable or an operation failed for good: tear everything down, keep the reported
    /// peers, tell the consumer once, and try again later (`DiscoveryConnection`).
    private func outage(_ error: DiscoveryError) {
        carryOut(connection.failed(), error: error)
    }

    /// Carries out what the connection's decider decided; `error` is the outage's cause, if one.
    private func carryOut(_ actions: [DiscoveryConnection.Action], error: DiscoveryError?) {
        for action in actions {
            switch action {
            case .tearDown:
                tearDown()
            case .retryLater(let attempt, let warning):
                let delay = retry.delay(attempt: attempt)
                let cause = error?.description ?? "avahi-daemon is unavailable"
                if warning {
                    let advice =
                        error?.isDaemonUnreachable == true ? "; peers must be given with --peer until it is back" : ""
                    logger.warning(
                        "\(cause)\(advice); retrying in \(delay.logText) (further failures are logged at debug level)")
                } else {
                    logger.debug("DNS-SD still unavailable: \(cause); retrying in \(delay.logText)")
                }
                // Weak: a cancelled work item keeps its closure until its deadline; the stream keeps the session
                // alive.
                let item = DispatchWorkItem { [weak self] in self?.connect() }
                retryItem = item
                queue.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: item)
            case .reportUnavailable:
                emit(.unavailable(reason: error?.description ?? "avahi-daemon is unavailable"))
            case .reportAvailable(let afterOutage):
                let what = advertisement == nil ? "browsing" : "browsing and advertising"
                if afterOutage {
                    logger.notice("avahi-daemon is reachable again: \(what) \(serviceType)")
                } else {
                    logger.debug("DNS-SD \(what) \(serviceType)")
                }
                emit(.available)
            case .watchStability:
                // Backoff and warning start over only once the connection has lasted; a daemon that accepts clients
                // and then fails them at once is retried with growing delays and warned about once.
                let stable = DispatchWorkItem { [weak self] in
                    guard let self else { return }
                    stableItem = nil
                    carryOut(connection.lasted(), error: nil)
                }
                stableItem = stable
                queue.asyncAfter(deadline: .now() + Self.stabilityPeriod.dispatchInterval, execute: stable)
            }
        }
    }

    /// Closes every ref. Reported peers are kept (no longer present, until the browser sees them again);
    /// everything else is forgotten.
    private func tearDown() {
        browse?.cancel()
        browse = nil
        registration?.cancel()
        registration = nil
        names.reset()
        sweepItem?.cancel()
        sweepItem = nil
        stableItem?.cancel()
        stableItem = nil
        slots.removeAll()
        for (name, service) in services {
            service.cancelWork()
            service.interfaces = [:]
            if reports[name] == nil { services[name] = nil }
        }
    }

    /// After a reconnect: peers that the browser has not reported again within `staleGrace` are gone.
    private func scheduleSweep() {
        sweepItem?.cancel()
        let item = DispatchWorkItem { [weak self] in self?.sweepStale() }
        sweepItem = item
        queue.asyncAfter(deadline: .now() + Self.staleGrace.dispatchInterval, execute: item)
    }

    private func sweepStale() {
        sweepItem = nil
        guard phase == .running else { return }
        for (name, service) in services where !service.isPresent {
            services[name] = nil
            service.cancelWork()
            if let gone = reports.gone(name) {
                logger.debug("DNS-SD instance not seen again after reconnecting", metadata: ["service": "\(name)"])
                emit(gone)
            }
        }
        startQueuedResolutions()
    }

    private func emit(_ event: DiscoveryEvent) {
        continuation.yield(event)
    }

    // MARK: Registration

    /// Registers the advertisement as `firstName`, or as the next alternative while the name is taken by another
    /// client of the same avahi-daemon (`RegistrationNames`).
    private func startRegistration(named firstName: String) throws(DiscoveryError) {
        guard let advertisement else { return }
        let type = serviceType
        let port = advertisement.port.bigEndian
        var name = names.begin(firstName)
        while true {
            let operation = DNSServiceOperation(label: "register \(name)", queue: queue)
            operation.handler = { [weak self] operation, reply in self?.handleRegistration(reply, from: operation) }
            let candidate = name
            let error = advertisement.txt.withUnsafeBytes { txt in
                operation.start { ref, context in
                    DNSServiceRegister(
                        ref, 0, 0, candidate, type, nil, nil, port, UInt16(txt.count), txt.baseAddress,
                        DNSServiceOperation.registerReply, context)
                }
            }
            let result: RegistrationNames.CallResult =
                switch error {
                case DNSServiceErrorCode.noError: .accepted
                case DNSServiceErrorCode.nameConflict: .nameTaken
                default: .failed
                }
            switch names.callReturned(result) {
            case .registering:
                registration = operation
                return
            case .retry(let next, let taken):
                logger.notice(
                    "DNS-SD name already registered on this host, trying another",
                    metadata: ["name": "\(taken)", "next": "\(next)"])
                name = next
            case .giveUp:
                throw .dnsService(operation: .register, code: error)
            }
        }
    }

    private func handleRegistration(_ reply: DNSServiceOperation.Reply, from operation: DNSServiceOperation) {
        switch reply {
        case .registered(let name):
            // Old Avahi versions also call back without error when the daemon goes away: same name, ignored.
            guard names.registered(as: name) else { return }
            logger.debug("DNS-SD service registered", metadata: ["name": "\(name)", "type": "\(serviceType)"])
            emit(.registered(name: name))
        case .failed(let code) where code == DNSServiceErrorCode.nameConflict:
            operation.cancel()
            registration = nil
            let next = names.conflicted(fallback: advertisement?.name ?? "")
            logger.notice("DNS-SD name conflict, trying another name", metadata: ["next": "\(next)"])
            do {
                try startRegistration(named: next)
            } catch {
                outage(error)
            }
        case .failed(let code):
            outage(.dnsService(operation: .register, code: code))
        default:
            break
        }
    }

    // MARK: Browsing

    private func startBrowsing() throws(DiscoveryError) {
        let operation = DNSServiceOperation(label: "browse \(serviceType)", queue: queue)
        operation.handler = { [weak self] _, reply in self?.handleBrowse(reply) }
        let type = serviceType
        let error = operation.start { ref, context in
            DNSServiceBrowse(ref, 0, 0, type, nil, DNSServiceOperation.browseReply, context)
        }
        guard error == DNSServiceErrorCode.noError else { throw .dnsService(operation: .browse, code: error) }
        browse = operation
    }

    private func handleBrowse(_ reply: DNSServiceOperation.Reply) {
        switch reply {
        case .browsed(true, let interfaceIndex, let name, let type, let domain):
            instanceAdded(name: name, type: type, domain: domain, interfaceIndex: interfaceIndex)
        case .browsed(false, let interfaceIndex, let name, _, _):
            instanceRemoved(name: name, interfaceIndex: interfaceIndex)
        case .failed(let code):
            outage(.dnsService(operation: .browse, code: code))
        default:
            break
        }
    }

    private func instanceAdded(name: String, type: String, domain: String, interfaceIndex: UInt32) {
        let service: DiscoveredService
        if let known = services[name] {
            service = known
            service.type = type
            service.domain = domain
        } else {
            service = DiscoveredService(name: name, type: type, domain: domain)
            services[name] = service
        }
        let wasPresent = service.isPresent
        service.interfaces[interfaceIndex, default: 0] += 1
        logger.trace(
            "DNS-SD instance announced", metadata: ["service": "\(name)", "interface": "\(interfaceIndex)"])
        if !wasPresent {
            service.failedResolutions = 0
            service.announcedAt = .now
            // The other side's to resolve first, unless its session is up already (it dialed before its
            // instance was browsed here): then there is nothing to wait for, and it is resolved now, behind the
            // others (`ResolutionPriority`), as `sessionUp(named:)` does when the session comes second.
            if let own = names.ownName, !ResolutionSide.resolvesFirst(own: own, other: name), !priority.canWait(name) {
                leaveToOtherSide(service)
            } else {
                requestResolution(of: service, on: interfaceIndex)
            }
        }
    }

    /// The pair is the other side's to resolve and dial first (`ResolutionSide`): resolve it only after
    /// `otherSideDelay`, and then behind the others if its session came up meanwhile (its address is then only a
    /// fallback, and the peer is reported as any other).
    private func leaveToOtherSide(_ service: DiscoveredService) {
        logger.trace("DNS-SD resolution left to the other side first", metadata: ["service": "\(service.name)"])
        resolveLater(service, after: Self.otherSideDelay, canWait: false)
        service.leftToOtherSide = true
    }

    /// A session came up with a peer calling itself `name`: if that instance was left to the other side, the other
    /// side has dialed; resolve it now, behind every instance still waiting, so that its listening address and its
    /// leaving are known as for any other peer.
    private func sessionUp(named name: String) {
        guard phase == .running, let service = services[name], service.leftToOtherSide, service.resolution == nil,
            let interfaceIndex = preferredInterface(of: service)
        else { return }
        requestResolution(of: service, on: interfaceIndex, canWait: true)
    }

    /// Resolves `service` after `delay` (behind the others if `canWait`, or if its peer has a session by then).
    private func resolveLater(_ service: DiscoveredService, after delay: Duration, canWait: Bool) {
        service.cancelWork()
        let item = DispatchWorkItem { [weak self, weak service] in
            guard let self, let service, self.services[service.name] === service, service.resolution == nil,
                let interfaceIndex = preferredInterface(of: service)
            else { return }
            self.requestResolution(of: service, on: interfaceIndex, canWait: canWait)
        }
        service.retry = item
        queue.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: item)
    }

    private func instanceRemoved(name: String, interfaceIndex: UInt32) {
        guard let service = services[name], let count = service.interfaces[interfaceIndex] else { return }
        service.interfaces[interfaceIndex] = count > 1 ? count - 1 : nil
        logger.trace("DNS-SD instance withdrawn", metadata: ["service": "\(name)", "interface": "\(interfaceIndex)"])
        if service.isPresent {
            // Still there on another interface: resolve there if the peer was resolved on the one now gone.
            let resolvedHere =
                reports[name]?.interfaceIndex == interfaceIndex
                || service.resolution?.interfaceIndex == interfaceIndex
            if service.interfaces[interfaceIndex] == nil, resolvedHere, let other = preferredInterface(of: service) {
                startResolution(of: service, on: other)
            }
            return
        }
        services[name] = nil
        service.cancelWork()
        slots.remove(name)
        startQueuedResolutions()
        if let gone = reports.gone(name) {
            logger.debug("DNS-SD instance gone", metadata: ["service": "\(name)"])
            emit(gone)
        }
    }

    // MARK: Resolving

    /// Resolves the instance now, or queues it when no slot is free. One that can wait (`ResolutionPriority`, or a
    /// confirmation: `canWait`) queues behind the others even when a slot is free.
    private func requestResolution(of service: DiscoveredService, on interfaceIndex: UInt32, canWait: Bool = false) {
        service.cancelWork()
        service.leftToOtherSide = false
        let canWait = canWait || priority.canWait(service.name)
        guard slots.request(service.name, canWait: canWait, running: runningResolutions) else { return }
        startResolution(of: service, on: interfaceIndex)
    }

    /// The interface to resolve `service` on (`DiscoveredService.preferredInterface(reportedOn:)`).
    private func preferredInterface(of service: DiscoveredService) -> UInt32? {
        service.preferredInterface(reportedOn: reports[service.name]?.interfaceIndex)
    }

    /// The resolutions running now.
    private var runningResolutions: Int { services.values.count { $0.resolution != nil } }

    /// Resolves the instance on one interface (SRV, TXT), then looks up its host's address there.
    private func startResolution(of service: DiscoveredService, on interfaceIndex: UInt32) {
        service.cancelWork()
        let running = runningResolutions
        guard slots.admit(service.name, running: running) else { return }
        let resolution = DiscoveredService.Resolution(interfaceIndex: interfaceIndex)
        service.resolution = resolution
        logger.trace("DNS-SD resolving", metadata: ["service": "\(service.name)", "running": "\(running)"])
        let operation = DNSServiceOperation(label: "resolve \(service.name)", queue: queue)
        operation.handler = { [weak self, weak service, weak resolution] operation, reply in
            guard let self, let service, let resolution, service.resolution === resolution else { return }
            self.handleResolve(reply, from: operation, service: service, resolution: resolution)
        }
        resolution.operations.append(operation)
        let (name, type, domain) = (service.name, service.type, service.domain)
        let error = operation.start { ref, context in
            DNSServiceResolve(ref, 0, interfaceIndex, name, type, domain, DNSServiceOperation.resolveReply, context)
        }
        guard error == DNSServiceErrorCode.noError else {
            if running > 0 {
                // Other resolutions hold connections: wait for one of them to end instead of counting a failure.
                service.cancelWork()
                slots.couldNotStart(service.name, running: running)
                logger.debug(
                    "DNS-SD resolve could not start; fewer at once",
                    metadata: ["service": "\(service.name)", "running": "\(running)", "error": "\(error)"])
                return
            }
            resolutionFailed(service, reason: DiscoveryError.dnsService(operation: .resolve, code: error).description)
            return
        }
        let timeout = DispatchWorkItem { [weak self, weak service, weak resolution] in
            guard let self, let service, let resolution, service.resolution === resolution else { return }
            self.resolutionFailed(service, reason: "no answer within \(Self.resolutionTimeout.logText)")
        }
        resolution.timeout = timeout
        queue.asyncAfter(deadline: .now() + Self.resolutionTimeout.dispatchInterval, execute: timeout)
    }

    private func handleResolve(
        _ reply: DNSServiceOperation.Reply, from operation: DNSServiceOperation, service: DiscoveredService,
        resolution: DiscoveredService.Resolution
    ) {
        switch reply {
        case .resolved(_, let hostTarget, let port, let txtBytes):
            operation.cancel()
            resolution.operations.removeAll { $0 === operation }
            let txt = TXTRecord(parsing: txtBytes)
            guard let peerID = txt.peerID else {
                let reason =
                    txt.rawID.map { "its TXT id '\($0)' is not a valid peer ID" } ?? "its TXT record has no id"
                ignore(service, reason: reason, level: .notice)
                return
            }
            if let ownPeerID, peerID == ownPeerID {
                ignore(service, reason: "it is our own service", level: .debug)
                return
            }
            guard port > 0 else {
                ignore(service, reason: "it has port 0", level: .notice)
                return
            }
            resolution.hostTarget = hostTarget
            resolution.port = port
            resolution.peerID = peerID
            resolution.versions = txt.versions
            lookUpAddress(of: service, resolution: resolution)
        case .failed(let code):
            // -65537 here is either a resolve timeout or avahi-daemon going away; in the latter case the browse
            // reports it too and the outage handling takes over.
            resolutionFailed(service, reason: DiscoveryError.dnsService(operation: .resolve, code: code).description)
        default:
            break
        }
    }

    /// Queries the A record of the resolved host on the resolve's interface, and its AAAA record too if no IPv4
    /// address came within `ipv4Preference` (Avahi's libdns_sd has no `DNSServiceGetAddrInfo`). One query at a time
    /// keeps the D-Bus connections per resolution to one.
    private func lookUpAddress(of service: DiscoveredService, resolution: DiscoveredService.Resolution) {
        query(AddressRecord.typeA, of: service, resolution: resolution)
        let ipv6 = DispatchWorkItem { [weak self, weak service, weak resolution] in
            guard let self, let service, let resolution, service.resolution === resolution else { return }
            self.query(AddressRecord.typeAAAA, of: service, resolution: resolution)
        }
        resolution.ipv6Query = ipv6
        queue.asyncAfter(deadline: .now() + Self.ipv4Preference.dispatchInterval, execute: ipv6)
    }

    private func query(_ recordType: UInt16, of service: DiscoveredService, resolution: DiscoveredService.Resolution) {
        let host = resolution.hostTarget
        let interfaceIndex = resolution.interfaceIndex
        let operation = DNSServiceOperation(label: "address of \(host)", queue: queue)
        operation.handler = { [weak self, weak service, weak resolution] operation, reply in
            guard let self, let service, let resolution, service.resolution === resolution else { return }
            self.handleAddress(reply, from: operation, service: service, resolution: resolution)
        }
        resolution.operations.append(operation)
        let error = operation.start { ref, context in
            DNSServiceQueryRecord(
                ref, 0, interfaceIndex, host, recordType, UInt16(kDNSServiceClass_IN),
                DNSServiceOperation.queryReply, context)
        }
        if error != DNSServiceErrorCode.noError {
            resolutionFailed(
                service, reason: DiscoveryError.dnsService(operation: .addressLookup, code: error).description)
        }
    }

    private func handleAddress(
        _ reply: DNSServiceOperation.Reply, from operation: DNSServiceOperation, service: DiscoveredService,
        resolution: DiscoveredService.Resolution
    ) {
        switch reply {
        case .record(true, let interfaceIndex, let type, let rdata):
            guard let address = AddressRecord.text(type: type, rdata: rdata, interfaceIndex: interfaceIndex) else {
                return
            }
            // An A answer, or an AAAA answer (asked for only after the A query had `ipv4Preference` to answer).
            complete(service, resolution: resolution, address: address)
        case .failed(let code):
            resolutionFailed(
                service, reason: DiscoveryError.dnsService(operation: .addressLookup, code: code).description)
        default:
            break
        }
    }

    /// Starts waiting resolutions while slots are free (see `maximumConcurrentResolutions`).
    private func startQueuedResolutions() {
        // The first that cannot wait (see `ResolutionPriority`), else the first.
        while let name = slots.next(running: runningResolutions, canWait: { priority.canWait($0) }) {
            guard phase == .running, let service = services[name], service.resolution == nil,
                let interfaceIndex = preferredInterface(of: service)
            else { continue }
            startResolution(of: service, on: interfaceIndex)
        }
    }

    /// The instance is resolved: report it if it is new or differs from what was reported.
    private func complete(_ service: DiscoveredService, resolution: DiscoveredService.Resolution, address: String) {
        guard let peerID = resolution.peerID else { return }
        service.cancelWork()
        slots.completed()
        defer { startQueuedResolutions() }
        service.failedResolutions = 0
        service.ignoredReason = nil
        var hostName = resolution.hostTarget
        if hostName.hasSuffix(".") { hostName.removeLast() }
        let dialsFirst = names.ownName.map {
            ResolutionSide.resolvesFirst(own: $0, other: service.name)
        }
        let peer = DiscoveredPeer(
            serviceName: service.name, peerID: peerID, versions: resolution.versions, hostName: hostName,
            address: address, port: resolution.port, interfaceIndex: resolution.interfaceIndex,
            dialsFirst: dialsFirst ?? false)
        let metadata: Logger.Metadata = [
            "service": "\(service.name)", "id": "\(peerID.shortDescription)", "address": "\(address):\(peer.port)",
        ]
        switch reports.resolved(peer) {
        case nil:
            logger.trace("DNS-SD instance resolved, unchanged", metadata: metadata)
        case .appeared?:
            logger.debug("DNS-SD instance resolved", metadata: metadata)
            emit(.appeared(peer))
            // Only an answer that came soon after the announcement can be a record its goodbye left behind.
            if ContinuousClock.now - service.announcedAt < Self.confirmationDelay { scheduleConfirmation(of: service) }
        case let event?:
            logger.debug("DNS-SD instance changed", metadata: metadata)
            emit(event)
        }
    }

    /// Resolves a newly reported instance once more a little later. When a daemon restarts on another port, its old
    /// records linger for a second after their goodbye (RFC 6762 §10.1), and a resolve in that window answers with
    /// the dead port; resolves end with their first answer, so without this nothing would correct it. A different
    /// answer is reported as `changed`.
    private func scheduleConfirmation(of service: DiscoveredService) {
        // After the first resolutions of the others: while a LAN comes up they are what the mesh waits for.
        resolveLater(service, after: Self.confirmationDelay, canWait: true)
    }

    /// The instance is not a peer to report; if it was reported (its TXT changed), it disappears.
    private func ignore(_ service: DiscoveredService, reason: String, level: Logger.Level) {
        service.cancelWork()
        defer { startQueuedResolutions() }
        if service.ignoredReason != reason {
            service.ignoredReason = reason
            logger.log(level: level, "ignoring DNS-SD instance: \(reason)", metadata: ["service": "\(service.name)"])
        }
        if let gone = reports.gone(service.name) { emit(gone) }
    }

    /// A resolve or address lookup failed or timed out: try again later while the instance is announced.
    private func resolutionFailed(_ service: DiscoveredService, reason: String) {
        service.cancelWork()
        defer { startQueuedResolutions() }
        service.failedResolutions += 1
        let metadata: Logger.Metadata = ["service": "\(service.name)", "reason": "\(reason)"]
        guard phase == .running, service.isPresent, services[service.name] === service else { return }
        guard service.failedResolutions < Self.maximumResolutionAttempts else {
            logger.notice("cannot resolve DNS-SD instance; giving up until it is announced again", metadata: metadata)
            return
        }
        let delay = retry.delay(attempt: service.failedResolutions - 1)
        logger.debug("DNS-SD resolve failed; retrying in \(delay.logText)", metadata: metadata)
        let item = DispatchWorkItem { [weak self, weak service] in
            guard let self, let service, self.services[service.name] === service,
                let interfaceIndex = preferredInterface(of: service)
            else { return }
            self.startResolution(of: service, on: interfaceIndex)
        }
        service.retry = item
        queue.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: item)
    }
}
