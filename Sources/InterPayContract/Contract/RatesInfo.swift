/// The answer of `rates`: where the rates come from, how old they are, and whether they are stale.
public struct RatesInfo: Codable, Sendable, Equatable {
    /// The base currency.
    public var base: String
    /// The source's name.
    public var source: String
    /// When the source last updated them (Unix time).
    public var updatedAt: Int64
    /// When the source will update them next.
    public var nextUpdateAt: Int64
    /// When they were fetched.
    public var fetchedAt: Int64
    /// How old they are, in seconds.
    public var ageSeconds: Int64
    /// True when they could not be refreshed.
    public var stale: Bool
    /// Why they are stale.
    @Nullable public var staleReason: String?
    /// Each currency's rate against `base`, as a decimal string.
    public var rates: [String: String]

    /// Rates.
    public init(
        base: String, source: String, updatedAt: Int64, nextUpdateAt: Int64, fetchedAt: Int64, ageSeconds: Int64,
        stale: Bool, staleReason: String?, rates: [String: String]
    ) {
        self.base = base
        self.source = source
        self.updatedAt = updatedAt
        self.nextUpdateAt = nextUpdateAt
        self.fetchedAt = fetchedAt
        self.ageSeconds = ageSeconds
        self.stale = stale
        self.staleReason = staleReason
        self.rates = rates
    }
}

/// The answer of `currency`: the preferred currency and where it comes from.
public struct PreferredCurrencyInfo: Codable, Sendable, Equatable {
    /// The ISO 4217 code; null when none is preferred.
    @Nullable public var currency: String?
    /// `configuration`, `user` or `none`.
    public var source: String

    /// An answer.
    public init(currency: String?, source: String) {
        self.currency = currency
        self.source = source
    }
}

/// The answer of `stats`.
public struct StatsInfo: Codable, Sendable, Equatable {
    /// One group's figures in one direction and currency.
    public struct Row: Codable, Sendable, Equatable {
        /// The category, the peer's name, or the currency; null for payments without a category.
        @Nullable public var group: String?
        /// `in` or `out`.
        public var direction: PaymentDirection
        /// The ISO 4217 code.
        public var currency: String
        /// Accepted payments.
        public var count: Int64
        /// Their total, a decimal string.
        public var total: String
        /// Their average, a decimal string.
        public var average: String
        /// The total in minor units.
        public var totalMinor: Int64
        /// The average in minor units.
        public var averageMinor: Int64
        /// How many of them are settled.
        public var settledCount: Int64
        /// The settled total, a decimal string.
        public var settledTotal: String
        /// The settled total in minor units.
        public var settledMinor: Int64

        /// A row.
        public init(
            group: String?, direction: PaymentDirection, currency: String, count: Int64, total: String, average: String,
            totalMinor: Int64, averageMinor: Int64, settledCount: Int64, settledTotal: String, settledMinor: Int64
        ) {
            self.group = group
            self.direction = direction
            self.currency = currency
            self.count = count
            self.total = total
            self.average = average
            self.totalMinor = totalMinor
            self.averageMinor = averageMinor
            self.settledCount = settledCount
            self.settledTotal = settledTotal
            self.settledMinor = settledMinor
        }
    }

    /// The rows.
    public var rows: [Row]

    /// Statistics.
    public init(rows: [Row]) {
        self.rows = rows
    }
}

/// The answer of `web`: the web app's address and the URL that logs in with its token.
public struct WebLogin: Codable, Sendable, Equatable {
    /// The login URL, with a one-time login code (2 minutes).
    public var url: String
    /// The loopback address.
    public var address: String
    /// The port.
    public var port: Int64

    /// An answer.
    public init(url: String, address: String, port: Int64) {
        self.url = url
        self.address = address
        self.port = port
    }
}
