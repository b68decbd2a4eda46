public import InterPayCore

extension AppDatabase {
    /// The failed pairing attempts and lock recorded for `peerID`, if any.
    public func pairingLockout(for peerID: PeerID) async throws(StoreError) -> PairingLockoutRecord? {
        try await read("read pairing lockout of \(peerID.shortDescription)") { db in
            try Ledger(db).pairingLockout(for: peerID)
        }
    }

    /// Records `record`; a record with no failures and no lock removes the row.
    public func savePairingLockout(_ record: PairingLockoutRecord) async throws(StoreError) {
        try await write("save pairing lockout of \(record.peerID.shortDescription)") { db in
            try Ledger(db).savePairingLockout(record)
        }
    }
}
