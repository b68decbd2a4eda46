import InterPayCore
import InterPayDiscovery
import InterPayTransport
import Logging
import ServiceLifecycle

/// The peer sessions: binds the listener, keeps the static peers dialed, and runs the sessions with the router that
/// hands their frames and events to the engine and pairing. On graceful shutdown, in one direction: nothing is
/// dialed or accepted any more, connected peers are told goodbye, and their sessions get a second to close. A
/// listener that fails fails the service, and with it the daemon (which a supervisor restarts) instead of running on
/// without peers.
///
/// First of the peer services in the group, so the last to stop: the others (discovery, the event feed, the timers)
/// end before the peers are told goodbye.
struct PeerSessionsService: Service, UsesDaemonServices {
    let services: DaemonServices
    let readiness: Readiness
    /// Told which peers hold a session, so that discovery resolves the others first.
    let resolutionPriority: ResolutionPriority
    let logger: Logger

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

        // Either graceful shutdown or a failed listener stops the sessions.
        let (stops, stop) = AsyncStream.makeStream(of: String?.self)
        var listenerFailure: String?
        let sessions = self.sessions
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
}

extension PeerSessionsService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines (instead of a dump of every property).
    var description: String { "PeerSessionsService(\(configuration.name))" }
}
