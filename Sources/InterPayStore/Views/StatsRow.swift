public import GRDB
public import InterPayCore

/// One group of `AppDatabase.stats(since:groupBy:)`: how many accepted payments, and how much, in one currency and
/// one role. Every amount is in minor units of `currency`; nothing is floating point.
public struct StatsRow: Sendable, Hashable, Codable, FetchableRecord {
    /// The group: a category (nil for payments without one), a peer ID's text form, or a currency code.
    public var groupKey: String?
    /// The currency of the amounts.
    public var currency: String
    /// `payee`: money we asked for (income); `payer`: money we were asked for (spending).
    public var role: PaymentRole
    /// How many payments.
    public var count: Int
    /// Their sum, in minor units.
    public var totalMinor: Int64
    /// `totalMinor / count`, rounded half to even (`Money.averageMinorUnits`).
    public var averageMinor: Int64
    /// How many of them are settled (the payee confirmed the money arrived).
    public var settledCount: Int = 0
    /// The sum of the settled ones, in minor units.
    public var settledMinor: Int64 = 0
    /// Grouped by peer: the name the peer last announced, if known.
    public var announcedName: String?
    /// Grouped by peer: the name pinned when pairing, if the peer is paired.
    public var pinnedName: String?
    /// Grouped by peer: the name a paired peer was paired under, once the user renamed it.
    public var pairedName: String?

    /// Builds a row (the store fetches them; tests and callers may build their own).
    public init(
        groupKey: String?, currency: String, role: PaymentRole, count: Int, totalMinor: Int64, averageMinor: Int64
    ) {
        self.groupKey = groupKey
        self.currency = currency
        self.role = role
        self.count = count
        self.totalMinor = totalMinor
        self.averageMinor = averageMinor
    }
}
