public import InterPayCore

/// A source of exchange rates. `ExchangeRateAPIProvider` is the real one; tests may substitute their own.
public protocol RatesProvider: Sendable {
    /// Where the rates come from, safe to log and store (any secret masked).
    var source: String { get }

    /// Fetches the current rates relative to `base`; `now` is recorded as the time of the fetch.
    func fetchRates(base: CurrencyCode, now: Timestamp) async throws(RatesError) -> RateSnapshot
}
