import Dispatch
import InterPayCore

/// What a discovery session knows about one instance name: where the browser sees it, and the resolution in
/// progress (what was reported to the consumer is `ReportedPeers`'s).
///
/// Confined to the session's queue, like everything the session owns.
final class DiscoveredService {
    /// The resolve of an instance and the address lookup of its host, until the first usable answer.
    final class Resolution {
        /// The interface the instance is resolved on.
        let interfaceIndex: UInt32
        /// The resolve and address queries still open.
        var operations: [DNSServiceOperation] = []
        /// Ends the resolution when no answer comes in time.
        var timeout: DispatchWorkItem?
        /// Queries the AAAA record when no IPv4 address came in time.
        var ipv6Query: DispatchWorkItem?
        /// From the resolve: SRV target, port and TXT.
        var hostTarget = ""
        var port = 0
        var peerID: PeerID?
        var versions: [Int] = []

        init(interfaceIndex: UInt32) {
            self.interfaceIndex = interfaceIndex
        }

        /// Closes every open operation and timer.
        func cancel() {
            for operation in operations { operation.cancel() }
            operations = []
            timeout?.cancel()
            timeout = nil
            ipv6Query?.cancel()
            ipv6Query = nil
        }
    }

    /// The instance name.
    let name: String
    /// Type and domain as the browser reported them (needed to resolve).
    var type: String
    var domain: String
    /// How many browse adds without a matching remove each interface has reported (an instance can be reported
    /// once per interface and address family).
    var interfaces: [UInt32: Int] = [:]
    /// The resolution in progress.
    var resolution: Resolution?
    /// A scheduled new attempt after a failed resolution.
    var retry: DispatchWorkItem?
    /// Failed resolutions since the instance was last announced or resolved.
    var failedResolutions = 0
    /// Why the instance is ignored (own service, no valid `id`), so that it is logged once.
    var ignoredReason: String?
    /// Whether its resolution waits for the other side's dial (`ResolutionSide`), until that side's session comes up
    /// or `otherSideDelay` passes.
    var leftToOtherSide = false
    /// When the browser last announced it after it was gone (or first), for `DiscoverySession.confirmationDelay`.
    var announcedAt = ContinuousClock.now

    init(name: String, type: String, domain: String) {
        self.name = name
        self.type = type
        self.domain = domain
    }

    /// Whether the browser currently sees the instance on some interface.
    var isPresent: Bool { !interfaces.isEmpty }

    /// The interface to resolve on: `reportedOn` (where the reported peer was resolved) while the instance is still
    /// there, else the lowest index that has the instance.
    func preferredInterface(reportedOn: UInt32?) -> UInt32? {
        if let reportedOn, interfaces[reportedOn] != nil { return reportedOn }
        return interfaces.keys.min()
    }

    /// Stops the resolution in progress and any scheduled retry.
    func cancelWork() {
        resolution?.cancel()
        resolution = nil
        retry?.cancel()
        retry = nil
    }
}
