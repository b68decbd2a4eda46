import InterPayCore
import InterPayDiscovery
import InterPayTransport
import Logging
import ServiceLifecycle

/// DNS-SD: advertises this daemon as `_interpay._tcp` and turns what it browses into dial targets for the sessions.
/// Graceful shutdown ends it (the advertisement is withdrawn), before the peers are told goodbye.
struct PeerDiscoveryService: Service, UsesDaemonServices {
    let services: DaemonServices
    let readiness: Readiness
    /// Which peers hold a session: they are resolved last.
    let resolutionPriority: ResolutionPriority
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            // The port the sessions' listener got, to advertise; none when the daemon stops before it listens.
            guard let port = await shared.listenerPort() else { return }
            let discovery = ServiceDiscovery(
                advertisement: Advertisement(
                    name: configuration.name, port: port, peerID: sessions.identity.peerID,
                    versions: Array(sessions.versions)),
                ownPeerID: sessions.identity.peerID, priority: resolutionPriority, logger: logger)
            await followDiscovery(discovery)
        }
    }

    /// Discovery events become dial targets (`DiscoveryTargets`: keyed by announced ID and address, so that a
    /// spoofed announcement cannot redirect or stop the dialing of a real peer).
    private func followDiscovery(_ discovery: ServiceDiscovery) async {
        var targets = DiscoveryTargets()
        func carryOut(
            _ commands: [DiscoveryTargets.Command], keepingConnected: Bool = false, holdsBack: Bool = true
        ) async {
            let connected = keepingConnected ? Set(await sessions.currentSessions().map(\.peerID)) : []
            for command in commands {
                switch command {
                case .maintain(let target):
                    await sessions.maintainConnection(
                        key: target.key, host: target.host, port: target.port, expectedPeerID: target.peerID,
                        giveUpAfter: DiscoveryTargets.giveUpAfter, holdsBack: holdsBack)
                case .stop(let target) where !connected.contains(target.peerID):
                    await sessions.stopMaintaining(key: target.key)
                case .stop:
                    // A goodbye for a peer we hold a session with may be spoofed (mDNS is not authenticated):
                    // keep dialing it. If it really left, its session ends and the dials fail, with back-off.
                    break
                }
            }
        }
        for await event in discovery.events() {
            switch event {
            case .registered(let name):
                logger.info("advertising", metadata: ["name": "\(name)", "type": "\(ServiceDiscovery.serviceType)"])
                readiness.mark(.discovery)
            case .appeared(let peer), .changed(let peer):
                logger.info(
                    "peer appeared",
                    metadata: [
                        "peer": "\(peer.serviceName)", "id": "\(peer.peerID.shortDescription)",
                        "address": "\(peer.address):\(peer.port)",
                    ])
                guard peer.versions.contains(where: sessions.versions.contains) else {
                    // PROTOCOL.md §2.1: a peer advertising no version we speak is not dialed.
                    logger.notice(
                        "peer speaks no protocol version in common; not dialing",
                        metadata: ["peer": "\(peer.serviceName)", "versions": "\(peer.versions)"])
                    await carryOut(targets.removed(instance: peer.serviceName))
                    continue
                }
                await carryOut(
                    targets.resolved(
                        instance: peer.serviceName,
                        to: .init(peerID: peer.peerID, host: peer.address, port: peer.port)),
                    holdsBack: !peer.dialsFirst)
            case .disappeared(let name, let peerID):
                logger.info(
                    "peer disappeared", metadata: ["peer": "\(name)", "id": "\(peerID?.shortDescription ?? "?")"])
                await carryOut(targets.removed(instance: name), keepingConnected: true)
            case .unavailable(let reason):
                shared.discovery = "unavailable"
                // Ready without DNS-SD: static peers work, and discovery comes back by itself.
                readiness.mark(.discovery)
                logger.debug("discovery unavailable", metadata: ["reason": "\(reason)"])
            case .available:
                shared.discovery = "on"
                logger.info("discovery available")
            }
        }
    }
}

extension PeerDiscoveryService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines.
    var description: String { "PeerDiscoveryService" }
}
