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

    /// Every known peer, by name (case-insensitive), then ID.
    public func peers() async throws(StoreError) -> [PeerRecord] {
        try await read("list peers") { db in
            try PeerRecord
                .order(PeerRecord.Columns.name.collating(.nocase), PeerRecord.Columns.peerID)
                .fetchAll(db)
        }
    }
}
