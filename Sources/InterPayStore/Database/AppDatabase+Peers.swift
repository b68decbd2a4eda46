import GRDB
public import InterPayCore

extension AppDatabase {
    /// Inserts a peer, or refreshes a known one: its name, its address (kept when `address` is nil) and when it was
    /// last seen. `firstSeen` keeps its first value.
    public func upsertPeer(_ peerID: PeerID, name: String, address: String?, seenAt: Timestamp) async throws(StoreError)
    {
        let record = PeerRecord(peerID: peerID, name: name, address: address, seenAt: seenAt)
        try await upsertPeer(record)
    }

    /// Inserts a peer record, or refreshes a known peer from it (see `upsertPeer(_:name:address:seenAt:)`).
    public func upsertPeer(_ record: PeerRecord) async throws(StoreError) {
        try await write("store peer \(record.peerID.shortDescription)") { db in
            try Self.upsert(record, in: db)
        }
    }

    /// The peer with this ID, if known.
    public func peer(id: PeerID) async throws(StoreError) -> PeerRecord? {
        try await read("read peer \(id.shortDescription)") { db in
            try PeerRecord.filter(PeerRecord.Columns.peerID == id.description).fetchOne(db)
        }
    }
}

/// What the peer list shows, read at once: the known peers, the pairings and the keys pinned at static addresses.
public struct PeerDirectory: Sendable, Hashable {
    /// Every known peer, by name (case-insensitive), then ID.
    public var peers: [PeerRecord]
    /// Every paired peer, keyed by ID.
    public var trusted: [PeerID: TrustedPeerRecord]
    /// The key pinned at each of the static addresses asked for that has one.
    public var pins: [String: PeerID]

    /// A directory.
    public init(peers: [PeerRecord], trusted: [PeerID: TrustedPeerRecord], pins: [String: PeerID]) {
        self.peers = peers
        self.trusted = trusted
        self.pins = pins
    }
}

extension AppDatabase {
    /// The known peers, the pairings, and the keys pinned at `addresses` (static peers' `HOST:PORT`), in one read
    /// transaction: one consistent view for the peer list, one trip to the database.
    public func peerDirectory(pinnedAt addresses: [String] = []) async throws(StoreError) -> PeerDirectory {
        try await read("list peers") { db in
            let peers =
                try PeerRecord
                .order(PeerRecord.Columns.name.collating(.nocase), PeerRecord.Columns.peerID)
                .fetchAll(db)
            let trusted = try TrustedPeerRecord.fetchAll(db)
            var pins: [String: PeerID] = [:]
            for address in addresses {
                pins[address] = try Self.staticPin(address: address, in: db)
            }
            return PeerDirectory(
                peers: peers,
                trusted: Dictionary(trusted.map { ($0.peerID, $0) }, uniquingKeysWith: { _, newer in newer }),
                pins: pins)
        }
    }
}
