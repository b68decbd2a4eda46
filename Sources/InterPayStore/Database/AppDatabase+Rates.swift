import GRDB
public import InterPayCore

extension AppDatabase {
    /// Stores `snapshot` as the cached rates of its base currency, replacing the previous snapshot of that base.
    public func saveRateSnapshot(_ snapshot: RateSnapshotRecord) async throws(StoreError) {
        try await write("store the \(snapshot.base) exchange rates") { db in
            try snapshot.insert(db, onConflict: .replace)
        }
    }

    /// The cached rates of `base`, if any were ever stored.
    public func rateSnapshot(base: CurrencyCode) async throws(StoreError) -> RateSnapshotRecord? {
        try await read("read the \(base) exchange rates") { db in
            try RateSnapshotRecord.fetchOne(db, key: base.code)
        }
    }
}
