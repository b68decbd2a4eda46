public import InterPayCore

/// Exchange rates relative to one base currency, as one fetch returned them.
///
/// `rates[code]` is how many units of `code` one unit of `base` buys, exactly as the provider wrote it. The base's
/// own rate is always exactly 1. Codes are kept as text because providers list currencies InterPay does not use.
public struct RateSnapshot: Sendable, Hashable {
    /// The currency the rates are relative to.
    public let base: CurrencyCode
    /// Currency code → units of that currency per one unit of `base`; every rate is positive.
    public let rates: [String: ExactDecimal]
    /// When the provider last updated the rates (`time_last_update_unix`).
    public let lastUpdate: Timestamp
    /// When the provider will publish newer rates (`time_next_update_unix`).
    public let nextUpdate: Timestamp
    /// When the rates were fetched.
    public let fetchedAt: Timestamp
    /// Where they came from: the provider's URL with any API key masked.
    public let source: String

    /// Describes a snapshot. The base's rate is set to exactly 1 when missing.
    public init(
        base: CurrencyCode, rates: [String: ExactDecimal], lastUpdate: Timestamp, nextUpdate: Timestamp,
        fetchedAt: Timestamp, source: String
    ) {
        var rates = rates
        if rates[base.code] == nil { rates[base.code] = .one }
        self.base = base
        self.rates = rates
        self.lastUpdate = lastUpdate
        self.nextUpdate = nextUpdate
        self.fetchedAt = fetchedAt
        self.source = source
    }

    /// The rate of `currency` (units per one unit of `base`), if listed.
    public func rate(for currency: CurrencyCode) -> ExactDecimal? {
        rates[currency.code]
    }
}
