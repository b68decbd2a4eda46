import InterPayCore
import InterPayEngine
import InterPayTransport

/// The payment engine's link over the TLS session manager: a session as the engine sees it, and stored frame bytes
/// queued on it as they are.
struct TransportLink: PaymentLink {
    let sessions: SessionManager

    var capabilities: [String] { sessions.capabilities }

    var name: String { sessions.displayName }

    func session(with peer: PeerID) -> LinkSession? {
        sessions.session(with: peer).map(Self.linkSession)
    }

    func send(_ bodies: [[UInt8]], on session: LinkSession) -> Bool {
        guard let info = sessions.session(with: session.peerID), info.serial == session.serial else { return false }
        return sessions.send(encoded: bodies, on: info)
    }

    func setPairingInProgress(_ inProgress: Bool, for peer: PeerID) {
        sessions.setPairingInProgress(inProgress, for: peer)
    }

    func trustChanged(for peer: PeerID) async {
        // The preference is asked again of the ledger, where the commit put the pairing.
        await sessions.preferenceChanged(for: peer)
    }

    /// A transport session as the engine sees it.
    static func linkSession(_ info: SessionInfo) -> LinkSession {
        LinkSession(
            // A peer that dialed us is kept by its host: its connection's source port is an ephemeral one.
            peerID: info.peerID, name: info.name, address: info.direction == .outbound ? info.remoteAddress : info.host,
            serial: info.serial,
            capabilities: info.capabilities)
    }
}
