public import InterPayCore

/// The rates `RatesService` answers with: the snapshot, and whether it is stale.
///
/// Rates are stale when their provider has published newer ones (`nextUpdate` has passed) but fetching them
/// failed; `staleReason` then says why. Callers should tell the user, e.g. "rates from 3 days ago".
public struct CurrentRates: Sendable, Hashable {
    /// The rates.
    public let snapshot: RateSnapshot
    /// Whether newer rates should exist but could not be fetched.
    public let isStale: Bool
    /// Seconds between the provider's last update of these rates (`lastUpdate`) and the time of the question;
    /// never negative.
    public let age: Int64
    /// Why fresh rates could not be fetched, when stale.
    public let staleReason: RatesError?

    /// Describes the answer to a question asked at `now`.
    public init(snapshot: RateSnapshot, now: Timestamp, staleReason: RatesError?) {
        self.snapshot = snapshot
        self.isStale = staleReason != nil
        let (difference, overflow) = now.secondsSince1970.subtractingReportingOverflow(
            snapshot.lastUpdate.secondsSince1970)
        self.age = overflow ? Int64.max : max(0, difference)
        self.staleReason = staleReason
    }
}
