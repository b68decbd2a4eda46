import InterPayContract
import InterPayCore
import InterPayStore
import InterPayTransport

/// The name a peer is shown under, and whether it announces another one.
///
/// A paired peer is shown under the name confirmed when pairing (or set with `interpay rename`): the name a peer
/// announces is its own choice and may change at any time, to "landlord" say, so it is shown beside the pinned one
/// and flagged, never instead of it. A peer that is not paired is shown under the name it announces now (the
/// session's, else the last one seen).
struct PeerName: Sendable, Hashable {
    /// The name to show.
    var shown: String
    /// What a paired peer announces, when that differs from `shown`; nil otherwise.
    var announced: String?
    /// Whether the peer is paired.
    var paired: Bool

    /// Every known peer's name: from the ledger's peers, the live sessions and the trust store.
    static func all(database: AppDatabase, sessions: SessionManager) async throws -> [PeerID: PeerName] {
        let directory = try await database.peerDirectory()
        return all(peers: directory.peers, sessions: await sessions.currentSessions(), trusted: directory.trusted)
    }

    /// Every known peer's name, from what was read: the ledger's peers, the live sessions (whose names win) and the
    /// trust store.
    static func all(
        peers: [PeerRecord], sessions: [SessionInfo], trusted: [PeerID: TrustedPeerRecord]
    ) -> [PeerID: PeerName] {
        var announced: [PeerID: String] = [:]
        for peer in peers { announced[peer.peerID] = peer.name }
        for session in sessions { announced[session.peerID] = session.name }
        var names: [PeerID: PeerName] = [:]
        for (peer, name) in announced {
            names[peer] = PeerName(
                announcedName: name, pinned: trusted[peer]?.name, pairedName: trusted[peer]?.pairedName)
        }
        for (peer, record) in trusted where names[peer] == nil {
            names[peer] = PeerName(announcedName: nil, pinned: record.name)
        }
        return names
    }

    /// A peer's name from what it announces and the name it is kept under, if it is paired. `pairedName` is the name
    /// it was paired under when the user renamed it since: the user's own name for it is no change of the peer's,
    /// so only an announcement other than both is flagged.
    init(announcedName: String?, pinned: String?, pairedName: String? = nil) {
        if let pinned {
            shown = pinned
            announced = announcedName == pinned || announcedName == pairedName ? nil : announcedName
            paired = true
        } else {
            shown = announcedName ?? ""
            announced = nil
            paired = false
        }
    }
}

extension PeerLabel {
    /// `peer` as people see it (`PeerLabel`), from the name it is shown under here; `?` when none is known.
    static func text(_ name: PeerName?, _ peer: PeerID) -> String {
        text(
            name: name.flatMap { $0.shown.isEmpty ? nil : $0.shown }, shortID: peer.shortDescription,
            paired: name?.paired == true, announcedName: name?.announced)
    }
}
