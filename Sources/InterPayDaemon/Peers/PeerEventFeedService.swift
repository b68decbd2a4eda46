import Foundation
import InterPayContract
import InterPayControl
import InterPayCore
import InterPayEngine
import InterPayRates
import InterPayStore
import Logging
import ServiceLifecycle

/// What the engine (payments, sessions, pairing) reports, as typed events (`ControlEvent`) for `interpay watch` and the web app's
/// streams; also keeps in the ledger the key a static peer pinned on first contact. Graceful shutdown ends it.
struct PeerEventFeedService: Service, UsesDaemonServices {
    let services: DaemonServices
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            await followEngine()
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
            if case .peerUp(let info) = event { await persistStaticPins(of: info.peerID) }
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
                // A share of one of our bills: the bill as it stands now, one row for `watch` and the Split page.
                if let bill = record.billID, record.role == .payee, let info = await billInfo(bill) {
                    publish(.billUpdated(info))
                }
            case .seriesUpdated(let series):
                let view = SeriesView(
                    series: series, instances: 0, accepted: 0, paid: 0, announcedName: nil, pinnedName: nil)
                publish(.seriesUpdated(ControlMethods.info(view, peerName: await name(of: series.peerID), now: .now)))
            case .delivered:
                break
            case .peerUp(let info):
                publish(.peerUp(await eventPeer(info.peerID, name: info.name, address: info.address)))
            case .peerDown(let info):
                publish(.peerDown(await eventPeer(info.peerID, name: info.name, address: info.address)))
            case .pairing(let pairing):
                await publish(pairing)
            }
        }
    }

    /// Keeps in the ledger the key each static peer without a configured ID pinned on first contact, so that a
    /// different key at that address is refused after a restart too. A session coming up writes the pins of its
    /// own peer only: before, each wrote every static peer's pin again, K² transactions while a mesh of K formed.
    private func persistStaticPins(of peerUp: PeerID) async {
        for peer in configuration.staticPeers where peer.peerID == nil {
            guard let pinned = await sessions.pinnedPeerID(forKey: peer.dialKey), pinned == peerUp else { continue }
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

    /// Publishes a pairing event.
    private func publish(_ event: PairingEvent) async {
        switch event {
        case .requested(let id, let name, _):
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

    private func converted(_ record: PaymentRecord) async -> Quote? {
        // A stored amount was checked when stored; one that no longer reads is shown without a conversion.
        guard let amount = try? record.amount else { return nil }
        return await conversions.quote(amount)
    }

    /// One of our bills as the control methods show it, or nil when it cannot be read (the event is left out).
    private func billInfo(_ id: UUID) async -> BillInfo? {
        do {
            guard let view = try await database.billViews(limit: 1, id: id).first else { return nil }
            let names = try await PeerName.all(database: database, sessions: sessions)
            return ControlMethods.info(
                view, peerName: { names[$0.record.peerID] ?? PeerName(announcedName: nil, pinned: nil) },
                convert: { _ in nil })
        } catch {
            logger.error("could not read a bill for an event", metadata: ["bill": "\(id)", "error": "\(error)"])
            return nil
        }
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
}

extension PeerEventFeedService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines.
    var description: String { "PeerEventFeedService" }
}
