public import InterPayCore
import InterPayMetrics
public import Logging

/// Exchange rates for the daemon: fetched from a provider, cached (`RatesCache`, the ledger in the daemon), served stale when the provider
/// cannot be reached.
///
/// `rates(base:now:)` answers from the cache while the provider has nothing newer (before `nextUpdate`), fetches
/// otherwise, and stores what it fetched. When a fetch fails it answers with the cached rates marked stale, with
/// their age and the error; with nothing cached it throws `noRatesAvailable`. After a failure it waits
/// `minimumRefetchInterval` seconds before asking the provider again, and it never refetches sooner than that after
/// a success either (a provider whose `nextUpdate` is already past is not asked on every conversion). Concurrent
/// questions share one fetch. The clock is the caller's: every method takes `now`.
public actor RatesService {
    /// The base currency of the rates `convert(_:to:now:)` uses (cross rates go through it).
    public nonisolated let base: CurrencyCode
    /// The fewest seconds between two fetches of the same base.
    public nonisolated let minimumRefetchInterval: Int64

    private nonisolated let cache: any RatesCache
    private nonisolated let provider: any RatesProvider
    private nonisolated let logger: Logger

    /// The last failed fetch of each base, until a fetch succeeds.
    private var lastFailure: [String: (at: Timestamp, error: RatesError)] = [:]
    /// The fetch under way for each base, shared by concurrent callers; `id` tells a newer fetch from it.
    private var inFlight: [String: (id: UInt64, task: Task<Result<RateSnapshot, RatesError>, Never>)] = [:]
    private var nextFetchID: UInt64 = 0

    /// A service caching in `cache` the rates `provider` publishes.
    ///
    /// - Parameters:
    ///   - cache: Where the last snapshot of each base is kept.
    ///   - provider: Where rates come from.
    ///   - base: The base currency for conversions (USD by default).
    ///   - minimumRefetchInterval: The fewest seconds between two fetches of one base (60 by default).
    ///   - logger: Where fetches and failures are logged (never with the API key).
    public init(
        cache: any RatesCache, provider: any RatesProvider, base: CurrencyCode, minimumRefetchInterval: Int64 = 60,
        logger: Logger = Logger(label: "interpay.rates")
    ) {
        self.cache = cache
        self.provider = provider
        self.base = base
        self.minimumRefetchInterval = max(0, minimumRefetchInterval)
        self.logger = logger
    }

    /// The rates relative to `base` at time `now`: cached when still current, fetched otherwise, stale when the
    /// fetch failed but older rates are cached.
    ///
    /// Throws `noRatesAvailable` (with the fetch error as its cause) when nothing can be fetched and nothing is
    /// cached.
    public func rates(base: CurrencyCode, now: Timestamp) async throws(RatesError) -> CurrentRates {
        let cached = await cachedSnapshot(base: base)
        if let cached, isCurrent(cached, now: now) {
            return CurrentRates(snapshot: cached, now: now, staleReason: nil)
        }
        if let failure = lastFailure[base.code], failure.at <= now,
            now < failure.at.adding(seconds: minimumRefetchInterval)
        {
            // Asked again right after a failure: do not hammer the provider.
            return try fallback(cached, base: base, now: now, error: failure.error)
        }
        switch await fetch(base: base, now: now) {
        case .success(let snapshot):
            lastFailure[base.code] = nil
            return CurrentRates(snapshot: snapshot, now: now, staleReason: nil)
        case .failure(let error):
            lastFailure[base.code] = (now, error)
            return try fallback(cached, base: base, now: now, error: error)
        }
    }

    /// Converts `amount` to `target` with the rates of `base` (nil: the service's `base`) at time `now` (see
    /// `rates(base:now:)` and `CurrencyConverter`).
    public func convert(
        _ amount: Money, to target: CurrencyCode, base: CurrencyCode? = nil, now: Timestamp
    ) async throws(RatesError) -> Quote {
        let rates = try await rates(base: base ?? self.base, now: now)
        return try CurrencyConverter.convert(amount, to: target, using: rates)
    }

    /// Converts `amount` with the rates already cached, never fetching: for paths that must not wait on the
    /// network. Nil when nothing is cached.
    public func convertCached(
        _ amount: Money, to target: CurrencyCode, base: CurrencyCode? = nil, now: Timestamp
    ) async throws(RatesError)
        -> Quote?
    {
        guard let cached = await cachedSnapshot(base: base ?? self.base) else { return nil }
        return try CurrencyConverter.convert(
            amount, to: target, using: CurrentRates(snapshot: cached, now: now, staleReason: nil))
    }

    // MARK: Fetching

    /// The longest a snapshot counts as current after its fetch, whatever its `nextUpdate` says: the provider
    /// publishes daily. One response naming a next update far ahead (a compromised endpoint, or anyone on the path
    /// of a plain `http://` template) otherwise stopped every later fetch for good, since the snapshot is kept in the
    /// ledger across restarts.
    public static let maximumFreshness: Int64 = 86_400

    /// Whether nothing newer than `snapshot` can be fetched yet.
    private func isCurrent(_ snapshot: RateSnapshot, now: Timestamp) -> Bool {
        let freshUntil = min(snapshot.nextUpdate, snapshot.fetchedAt.adding(seconds: Self.maximumFreshness))
        return now < freshUntil || now < snapshot.fetchedAt.adding(seconds: minimumRefetchInterval)
    }

    /// Fetches and caches the rates of `base`, joining a fetch already under way.
    private func fetch(base: CurrencyCode, now: Timestamp) async -> Result<RateSnapshot, RatesError> {
        if let running = inFlight[base.code] { return await running.task.value }
        nextFetchID += 1
        let id = nextFetchID
        let task = Task { [provider, cache, logger] () -> Result<RateSnapshot, RatesError> in
            let snapshot: RateSnapshot
            do throws(RatesError) {
                snapshot = try await provider.fetchRates(base: base, now: now)
            } catch {
                InterPayMetric.ratesFetchFailures.counter().increment()
                logger.warning(
                    "could not fetch exchange rates",
                    metadata: ["base": "\(base)", "source": "\(provider.source)", "error": "\(error)"])
                return .failure(error)
            }
            logger.info(
                "fetched exchange rates",
                metadata: [
                    "base": "\(base)", "source": "\(snapshot.source)", "currencies": "\(snapshot.rates.count)",
                    "lastUpdate": "\(snapshot.lastUpdate.secondsSince1970)",
                    "nextUpdate": "\(snapshot.nextUpdate.secondsSince1970)",
                ])
            await Self.store(snapshot, in: cache, logger: logger)
            return .success(snapshot)
        }
        inFlight[base.code] = (id, task)
        let result = await task.value
        if inFlight[base.code]?.id == id { inFlight[base.code] = nil }
        return result
    }

    /// The stale answer after a failed fetch, or `noRatesAvailable` when nothing is cached.
    private func fallback(
        _ cached: RateSnapshot?, base: CurrencyCode, now: Timestamp, error: RatesError
    )
        throws(RatesError) -> CurrentRates
    {
        guard let cached else { throw .noRatesAvailable(base: base.code, cause: error) }
        return CurrentRates(snapshot: cached, now: now, staleReason: error)
    }

    // MARK: The cache

    /// When the cached rates of `base` were fetched; nil when none are cached. Never fetches (the metrics read it).
    public func cachedFetchTime(base: CurrencyCode) async -> Timestamp? {
        await cachedSnapshot(base: base)?.fetchedAt
    }

    /// The cached snapshot of `base`; nil when none is stored or it cannot be read (which is logged).
    private func cachedSnapshot(base: CurrencyCode) async -> RateSnapshot? {
        do {
            return try await cache.snapshot(base: base)
        } catch {
            logger.error("cannot read cached exchange rates", metadata: ["base": "\(base)", "error": "\(error)"])
            return nil
        }
    }

    /// Stores a fetched snapshot; a failure is logged (the rates are still used, just not cached).
    private static func store(_ snapshot: RateSnapshot, in cache: any RatesCache, logger: Logger) async {
        do {
            try await cache.store(snapshot)
        } catch {
            logger.error(
                "cannot cache exchange rates", metadata: ["base": "\(snapshot.base)", "error": "\(error)"])
        }
    }
}
