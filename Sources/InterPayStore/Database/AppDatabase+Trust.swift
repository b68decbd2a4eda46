import GRDB
public import InterPayCore

extension AppDatabase {
    /// Records that the local user paired with `peerID` (again: the newer pairing replaces the older).
    public func trust(_ record: TrustedPeerRecord) async throws(StoreError) {
        try await write("trust peer \(record.peerID.shortDescription)") { db in
            try Ledger(db).trust(record)
        }
    }

    /// Forgets the pairing with `peerID`; false if it was not paired.
    @discardableResult
    public func untrust(_ peerID: PeerID) async throws(StoreError) -> Bool {
        try await write("untrust peer \(peerID.shortDescription)") { db in
            try Ledger(db).untrust(peerID)
        }
    }

    /// The pairing with `peerID`, if it is paired.
    public func trustedPeer(id peerID: PeerID) async throws(StoreError) -> TrustedPeerRecord? {
        try await read("read trust of \(peerID.shortDescription)") { db in
            try Ledger(db).trustedPeer(id: peerID)
        }
    }

    /// The IDs of every paired peer (their text form, as stored).
    public func trustedPeerIDs() async throws(StoreError) -> Set<String> {
        try await read("read the paired peers") { db in
            try Set(String.fetchAll(db, sql: "SELECT peerID FROM trustedPeer"))
        }
    }

    /// Changes the name a paired peer is shown under; false if it is not paired. The name it was paired under is
    /// kept (`pairedName`, at the first rename), so that the user's own name for it is not taken for the peer
    /// changing its name, while a name the peer announces later that is neither still is.
    public func renameTrustedPeer(_ peerID: PeerID, to name: String) async throws(StoreError) -> Bool {
        try await write("rename peer \(peerID.shortDescription)") { db in
            guard var record = try TrustedPeerRecord.fetchOne(db, key: peerID.description) else { return false }
            record.pairedName = record.pairedName ?? record.name
            record.name = String(name.unicodeScalars.prefix(Limits.maxNameLength))
            try record.update(db)
            return true
        }
    }
}
