import GRDB
public import InterPayCore

extension Ledger {
    /// The failed pairing attempts and lock recorded for `peerID`, if any.
    public func pairingLockout(for peerID: PeerID) throws -> PairingLockoutRecord? {
        try PairingLockoutRecord.fetchOne(db, key: peerID.description)
    }

    /// Records `record`; a record with no failures and no lock removes the row.
    public func savePairingLockout(_ record: PairingLockoutRecord) throws {
        if record.failures == 0 && record.lockedUntil == nil {
            try PairingLockoutRecord.deleteOne(db, key: record.peerID.description)
        } else {
            try record.upsert(db)
        }
    }

    /// Records that the local user paired with `record.peerID` (again: the newer pairing replaces the older).
    public func trust(_ record: TrustedPeerRecord) throws {
        try record.upsert(db)
    }

    /// Forgets the pairing with `peerID`; false if it was not paired.
    public func untrust(_ peerID: PeerID) throws -> Bool {
        try TrustedPeerRecord.deleteOne(db, key: peerID.description)
    }

    /// The pairing with `peerID`, if it is paired.
    public func trustedPeer(id peerID: PeerID) throws -> TrustedPeerRecord? {
        try TrustedPeerRecord.fetchOne(db, key: peerID.description)
    }
}
