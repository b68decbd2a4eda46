import Foundation
import InterPayControl
import InterPayCore
import InterPayDiscovery
import InterPayEngine
import InterPayRates
import InterPayStore
import InterPayTransport
import Logging
import ServiceLifecycle

/// The daemon's networking and payments: listens for peers, advertises and browses with DNS-SD, keeps a session
/// with every discovered or configured peer, feeds their frames to the payment engine, and expires payments on
/// time. On graceful shutdown it stops advertising, tells connected peers, and ends.
struct PeerService: Service, UsesDaemonServices {
    let services: DaemonServices
    let readiness: Readiness
    let logger: Logger
    /// Which peers hold a session: discovery resolves the others first.
    let resolutionPriority = ResolutionPriority()

    func run() async throws {
        let router = services.node.router(resolutionPriority: resolutionPriority)
        let port: Int
        do {
            port = try await sessions.start()
        } catch {
            throw DaemonError.transport(error.description)
        }
        shared.port = port
        shared.discovery = configuration.discoveryEnabled ? "starting" : "off"
        readiness.mark(.peerListener)
        if !configuration.discoveryEnabled { readiness.mark(.discovery) }
        logger.info(
            "interpayd listening",
            metadata: [
                "name": "\(configuration.name)", "id": "\(sessions.identity.peerID)", "port": "\(port)",
                "discovery": "\(configuration.discoveryEnabled ? "on" : "off")",
            ])
        for peer in configuration.staticPeers {
            var expected = peer.peerID
            if expected == nil {
                do {
                    expected = try await database.staticPin(address: peer.address)
                } catch {
                    // Without the stored pin the first key seen is pinned again, in memory: say so.
                    logger.error(
                        "cannot read the pinned key of a static peer",
                        metadata: ["peer": "\(peer)", "error": "\(error)"])
                }
            }
            await sessions.maintainConnection(
                key: peer.dialKey, host: peer.host, port: peer.port, expectedPeerID: expected)
        }

        // Either graceful shutdown or a failed listener stops everything; a failed listener also fails the service
        // (so the daemon exits non-zero and a supervisor restarts it) instead of running on without peers.
        let (stops, stop) = AsyncStream.makeStream(of: String?.self)
        var listenerFailure: String?
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                do {
                    try await sessions.run()
                } catch is CancellationError {
                    // Cancelled below on graceful shutdown: the listener ends normally.
                } catch {
                    stop.yield(String(describing: error))
                }
            }
            group.addTask {
                // Cancelled when the group ends: either way it is time to stop.
                try? await gracefulShutdown()
                stop.yield(nil)
            }
            group.addTask { await router.run(sessions.events) }
            group.addTask { await followEngine() }
            group.addTask { await followPairing() }
            group.addTask {
                var trim = MemoryTrim()
                while !Task.isCancelled {
                    await engine.tick()
                    await pairing.tick()
                    trim.afterChurn(connectionsEnded: sessions.inboundConnectionsEnded)
                    // What the peers' log budgets held back, said at most every 10 s (a line about no peer: never
                    // held back itself).
                    if let left = PeerLogBudget.shared.summary() {
                        logger.notice(
                            "\(left.lines) log lines from \(left.peers) peers suppressed",
                            metadata: ["lines": "\(left.lines)", "peers": "\(left.peers)"])
                    }
                    // Only cancellation ends the sleep early, and the loop's condition checks it.
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            if configuration.discoveryEnabled {
                let discovery = ServiceDiscovery(
                    advertisement: Advertisement(
                        name: configuration.name, port: port, peerID: sessions.identity.peerID,
                        versions: Array(sessions.versions)),
                    ownPeerID: sessions.identity.peerID, priority: resolutionPriority, logger: logger)
                group.addTask { await followDiscovery(discovery) }
            }
            // Wait for SIGTERM/SIGINT (or cancellation, or a failed listener), then say goodbye and stop everything.
            for await failure in stops {
                listenerFailure = failure
                break
            }
            // One direction: nothing is dialed or accepted from here on, then the peers are told, then their
            // sessions get a moment to close in order (at most a second) before everything is cancelled. Said once
            // the stop has begun: a session that registered before it logged its "session up" before this line.
            await sessions.beginShutdown()
            logger.info("shutting down")
            await sessions.closeAll(reason: "shutting down")
            await sessions.waitForSessionsToEnd(within: .seconds(1))
            group.cancelAll()
        }
        if let failure = listenerFailure {
            throw DaemonError.transport("the peer listener failed: \(failure)")
        }
    }

    /// Publishes `kind` now to `interpay watch` subscribers and the web app's event streams.
    private func publish(_ kind: ControlEvent.Kind) {
        do {
            try broadcaster.publish(ControlEvent(at: Timestamp.now.secondsSince1970, kind))
        } catch {
            logger.error("cannot encode an event", metadata: ["event": "\(kind.name)", "error": "\(error)"])
        }
    }

    /// `peer` as events name it, with its trust.
    private func eventPeer(_ peer: PeerID, name: String, address: String? = nil) async -> ControlEvent.EventPeer {
        ControlEvent.EventPeer(
            name: name, id: peer.description, shortID: peer.shortDescription,
            trust: await self.name(of: peer)?.paired == true ? .paired : .unverified, address: address)
    }

    /// Engine events go to `interpay watch` subscribers.
    private func followEngine() async {
        for await event in engine.events {
            if case .peerUp = event { await persistStaticPins() }
            // An event nobody watches is not built: its peer name and conversion are ledger and rates reads, for
            // every payment step.
            guard broadcaster.hasSubscribers else { continue }
            switch event {
            case .requestReceived(let record), .paymentUpdated(let record):
                let payment = ControlMethods.info(
                    record, peerName: await name(of: record.peerID), converted: await converted(record))
                let kind: ControlEvent.Kind =
                    if case .requestReceived = event { .requestReceived(payment) } else { .paymentUpdated(payment) }
                publish(kind)
            case .seriesUpdated(let series):
                let view = SeriesView(series: series, instances: 0, paid: 0, announcedName: nil, pinnedName: nil)
                publish(.seriesUpdated(ControlMethods.info(view, peerName: await name(of: series.peerID), now: .now)))
            case .delivered:
                break
            case .peerUp(let info):
                publish(.peerUp(await eventPeer(info.peerID, name: info.name, address: info.address)))
            case .peerDown(let info):
                publish(.peerDown(await eventPeer(info.peerID, name: info.name, address: info.address)))
            }
        }
    }

    /// Keeps in the ledger the key each static peer without a configured ID pinned on first contact, so that a
    /// different key at that address is refused after a restart too.
    private func persistStaticPins() async {
        for peer in configuration.staticPeers where peer.peerID == nil {
            guard let pinned = await sessions.pinnedPeerID(forKey: peer.dialKey) else { continue }
            do {
                if try await database.pinStatic(address: peer.address, to: pinned, at: .now) {
                    logger.notice(
                        "static peer pinned to the key first seen there",
                        metadata: ["peer": "\(peer.address)", "id": "\(pinned.shortDescription)"])
                }
            } catch {
                logger.error("cannot store a static peer's pin", metadata: ["peer": "\(peer)", "error": "\(error)"])
            }
        }
    }

    /// Pairing events go to `interpay watch` subscribers.
    private func followPairing() async {
        for await event in pairing.events {
            switch event {
            case .requested(let id, let name):
                publish(
                    .pairingRequested(
                        await eventPeer(id, name: name),
                        message: "peer \(id.shortDescription) wants to pair: run interpay pair \(id.shortDescription)"))
            case .started(let id, let name, let attemptID):
                publish(.pairingStarted(await eventPeer(id, name: name), attempt: attemptID.wireString))
            case .code(let id, let name, let code, let expiresAt):
                publish(
                    .pairingCode(
                        await eventPeer(id, name: name), code: code.digits, expiresAt: expiresAt.secondsSince1970))
            case .paired(let id, let name):
                publish(.paired(await eventPeer(id, name: name)))
            case .failed(let id, let name, let reason, let failures):
                publish(
                    .pairingFailed(
                        await eventPeer(id, name: name), reason: reason, failures: Int64(failures),
                        attemptsLeft: Int64(max(0, PairingMachine.maxFailures - failures))))
            case .locked(let id, let name, let until):
                publish(.pairingLocked(await eventPeer(id, name: name), lockedUntil: until.secondsSince1970))
            }
        }
    }

    private func converted(_ record: PaymentRecord) async -> Quote? {
        // A stored amount was checked when stored; one that no longer reads is shown without a conversion.
        guard let amount = try? record.amount else { return nil }
        return await conversions.quote(amount)
    }

    /// The name `peer` is shown under (`PeerName`); nil if the ledger cannot say, and the event shows no name.
    private func name(of peer: PeerID) async -> PeerName? {
        do {
            return try await PeerName.all(database: database, sessions: sessions)[peer]
        } catch {
            logger.error("could not read peer names for an event", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Discovery events become dial targets (`DiscoveryTargets`: keyed by announced ID and address, so that a
    /// spoofed announcement cannot redirect or stop the dialing of a real peer).
    private func followDiscovery(_ discovery: ServiceDiscovery) async {
        var targets = DiscoveryTargets()
        func carryOut(_ commands: [DiscoveryTargets.Command], keepingConnected: Bool = false) async {
            let connected = keepingConnected ? Set(await sessions.currentSessions().map(\.peerID)) : []
            for command in commands {
                switch command {
                case .maintain(let target):
                    await sessions.maintainConnection(
                        key: target.key, host: target.host, port: target.port, expectedPeerID: target.peerID,
                        giveUpAfter: DiscoveryTargets.giveUpAfter)
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
                        to: .init(peerID: peer.peerID, host: peer.address, port: peer.port)))
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

extension PeerService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines (instead of a dump of every property).
    var description: String { "PeerService(\(configuration.name))" }
}
