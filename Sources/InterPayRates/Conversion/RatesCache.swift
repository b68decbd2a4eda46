public import InterPayCore

/// Where `RatesService` keeps the last snapshot of each base currency, so that a restart, or a provider out of reach,
/// still has rates to show. The daemon keeps them in the ledger (`LedgerRatesCache`); tests may keep them in memory.
///
/// Errors are the cache's own: the service logs them and carries on without the cache.
public protocol RatesCache: Sendable {
    /// The snapshot last stored for `base`, or nil when there is none.
    func snapshot(base: CurrencyCode) async throws -> RateSnapshot?
    /// Stores `snapshot` as the one of its base currency, replacing the previous one.
    func store(_ snapshot: RateSnapshot) async throws
}
