public import InterPayCore

extension AppDatabase {
    /// The failed pairing attempts and lock recorded for `peerID`, if any.
    public func pairingLockout(for peerID: PeerID) async throws(StoreError) -> PairingLockoutRecord? {
        try await read("read pairing lockout of \(peerID.shortDescription)") { db in
            try PairingLockoutRecord.fetchOne(db, key: peerID.description)
        }
    }

    /// Records `record`; a record with no failures and no lock removes the row.
    public func savePairingLockout(_ record: PairingLockoutRecord) async throws(StoreError) {
        try await write("save pairing lockout of \(record.peerID.shortDescription)") { db in
            if record.failures == 0 && record.lockedUntil == nil {
                try PairingLockoutRecord.deleteOne(db, key: record.peerID.description)
            } else {
                try record.upsert(db)
            }
        }
    }
}
