public import InterPayCore
public import InterPayRates
public import InterPayStore

/// The rates cache of a daemon: the ledger's `rateSnapshot` table, one row per base currency, rates kept as exact
/// decimal text (nothing is rounded through floating point on the way in or out).
public struct LedgerRatesCache: RatesCache {
    /// The ledger holding the cache.
    public let database: AppDatabase

    /// A cache in `database`.
    public init(database: AppDatabase) {
        self.database = database
    }

    /// The snapshot stored for `base`. Throws the ledger's `StoreError`, or `RatesError.invalidRate` when a stored
    /// rate no longer reads as a decimal (a damaged cache).
    public func snapshot(base: CurrencyCode) async throws -> RateSnapshot? {
        guard let record = try await database.rateSnapshot(base: base) else { return nil }
        var rates: [String: ExactDecimal] = [:]
        for (code, text) in try record.rates() {
            do {
                rates[code] = try ExactDecimal(parsing: text)
            } catch {
                throw RatesError.invalidRate(currency: code, text: text, reason: "\(error)")
            }
        }
        return RateSnapshot(
            base: record.base, rates: rates, lastUpdate: record.lastUpdate, nextUpdate: record.nextUpdate,
            fetchedAt: record.fetchedAt, source: record.source)
    }

    /// Replaces the stored snapshot of `snapshot.base`. Throws the ledger's `StoreError`.
    public func store(_ snapshot: RateSnapshot) async throws {
        let record = try RateSnapshotRecord(
            base: snapshot.base, fetchedAt: snapshot.fetchedAt, lastUpdate: snapshot.lastUpdate,
            nextUpdate: snapshot.nextUpdate, source: snapshot.source, rates: snapshot.rates.mapValues(\.description))
        try await database.saveRateSnapshot(record)
    }
}
