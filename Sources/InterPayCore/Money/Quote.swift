/// The result of converting an amount: the converted money and the rates it was computed with.
public struct Quote: Sendable, Hashable {
    /// The amount converted.
    public let amount: Money
    /// The result, in minor units of `to`, rounded half-even once.
    public let converted: Money
    /// The currency converted from.
    public var from: CurrencyCode { amount.currency }
    /// The currency converted to.
    public var to: CurrencyCode { converted.currency }
    /// The base currency of the rates used.
    public let base: CurrencyCode
    /// Units of `from` per one unit of `base`, exactly as published.
    public let fromRate: ExactDecimal
    /// Units of `to` per one unit of `base`, exactly as published.
    public let toRate: ExactDecimal
    /// Units of `to` per one unit of `from` (`toRate / fromRate`) in plain decimal text, e.g. `"0.9013"`.
    ///
    /// Exact when `rateIsExact`; a cross rate such as 1/3 has no finite decimal form and is then shown rounded
    /// half-even to 19 significant digits. The conversion itself always uses the exact quotient.
    public let rate: String
    /// Whether `rate` is the exact quotient.
    public let rateIsExact: Bool
    /// When the provider last updated the rates used (`time_last_update_unix`).
    public let ratesUpdatedAt: Timestamp
    /// Whether the rates used are stale (newer ones exist but could not be fetched).
    public let isStale: Bool
    /// Seconds since the provider last updated the rates used, at the time of the conversion.
    public let ratesAge: Int64

    /// Describes a conversion.
    public init(
        amount: Money, converted: Money, base: CurrencyCode, fromRate: ExactDecimal, toRate: ExactDecimal,
        rate: String, rateIsExact: Bool, ratesUpdatedAt: Timestamp, isStale: Bool, ratesAge: Int64
    ) {
        self.amount = amount
        self.converted = converted
        self.base = base
        self.fromRate = fromRate
        self.toRate = toRate
        self.rate = rate
        self.rateIsExact = rateIsExact
        self.ratesUpdatedAt = ratesUpdatedAt
        self.isStale = isStale
        self.ratesAge = ratesAge
    }
}
