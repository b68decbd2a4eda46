import Foundation
import InterPayCore
import InterPayDaemon
import InterPayStore
import Testing

@testable import InterPayRates

@Suite("Rates service: cache in the ledger, refetch after next-update, stale fallback")
struct RatesServiceTests {
    private let usd: CurrencyCode
    private let path = "/v6/latest/USD"

    init() throws {
        usd = try CurrencyCode("USD")
    }

    private func at(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }

    private func makeService(_ server: FixtureServer, database: AppDatabase) throws -> RatesService {
        let provider = try ExchangeRateAPIProvider(
            client: RatesFixtures.client(), urlTemplate: server.url("/v6/latest/{base}"))
        return RatesService(
            cache: LedgerRatesCache(database: database), provider: provider, base: usd,
            logger: RatesFixtures.quietLogger)
    }

    @Test("rates are not refetched before next-update, and are refetched after it")
    func cacheUntilNextUpdate() async throws {
        try await withFixtureServer([path: .body(status: 200, RatesFixtures.usdSuccess)]) { server in
            let database = try AppDatabase.inMemory()
            let service = try makeService(server, database: database)
            let first = try await service.rates(base: usd, now: at(RatesFixtures.lastUpdate + 100))
            #expect(!first.isStale)
            #expect(first.age == 100)
            #expect(server.requestCount(path) == 1)

            // Still before time_next_update_unix: answered from the cache.
            for offset: Int64 in [101, 3_600, 86_399] {
                let cached = try await service.rates(base: usd, now: at(RatesFixtures.lastUpdate + offset))
                #expect(cached.snapshot.rates == first.snapshot.rates)
                #expect(!cached.isStale)
            }
            #expect(server.requestCount(path) == 1)

            // A new service on the same ledger (a restarted daemon) uses the cache too.
            let restarted = try makeService(server, database: database)
            _ = try await restarted.rates(base: usd, now: at(RatesFixtures.nextUpdate - 1))
            #expect(server.requestCount(path) == 1)

            // At next-update, the rates are fetched again.
            let refreshed = try await service.rates(base: usd, now: at(RatesFixtures.nextUpdate))
            #expect(server.requestCount(path) == 2)
            #expect(refreshed.snapshot.fetchedAt == at(RatesFixtures.nextUpdate))
            #expect(!refreshed.isStale)
        }
    }

    @Test("a next-update far ahead holds the rates a day at most; rates updated in the future are refused")
    func nextUpdateBounded() async throws {
        let forever = RatesFixtures.usdSuccess.replacingOccurrences(
            of: "\"time_next_update_unix\": 1700086400", with: "\"time_next_update_unix\": 9223372036854775807")
        try await withFixtureServer([path: .body(status: 200, forever)]) { server in
            let database = try AppDatabase.inMemory()
            let service = try makeService(server, database: database)
            let fetchedAt = RatesFixtures.lastUpdate + 100
            _ = try await service.rates(base: usd, now: at(fetchedAt))
            _ = try await service.rates(base: usd, now: at(fetchedAt + RatesService.maximumFreshness - 1))
            #expect(server.requestCount(path) == 1)
            // Before, the rates of that one response were served for good, across restarts.
            let restarted = try makeService(server, database: database)
            _ = try await restarted.rates(base: usd, now: at(fetchedAt + RatesService.maximumFreshness))
            #expect(server.requestCount(path) == 2)
        }
        let future = RatesFixtures.usdSuccess.replacingOccurrences(
            of: "\"time_last_update_unix\": 1700000000", with: "\"time_last_update_unix\": 1800000000")
        try await withFixtureServer([path: .body(status: 200, future)]) { server in
            let service = try makeService(server, database: try AppDatabase.inMemory())
            await #expect(throws: RatesError.self) {
                _ = try await service.rates(base: self.usd, now: self.at(RatesFixtures.lastUpdate))
            }
        }
    }

    @Test("the cache stores exact decimal strings in the ledger")
    func cachedExactly() async throws {
        try await withFixtureServer([path: .body(status: 200, RatesFixtures.usdSuccess)]) { server in
            let database = try AppDatabase.inMemory()
            _ = try await makeService(server, database: database).rates(base: usd, now: at(RatesFixtures.lastUpdate))
            let record = try #require(try await database.rateSnapshot(base: usd))
            #expect(record.source == server.url(path))
            #expect(record.lastUpdate == at(RatesFixtures.lastUpdate))
            #expect(record.nextUpdate == at(RatesFixtures.nextUpdate))
            let rates = try record.rates()
            #expect(rates["JPY"] == "151.23456789")
            #expect(rates["BTN"] == "0.00001")
            #expect(record.ratesJSON.contains(#""EUR":"0.9013""#))
            let migrations = try await database.appliedMigrations()
            #expect(migrations.contains("v2-rates"))
        }
    }

    @Test("when the server is gone after next-update, the cached rates are served stale with their age")
    func staleFallback() async throws {
        let database = try AppDatabase.inMemory()
        let server = try await FixtureServer.start([path: .body(status: 200, RatesFixtures.usdSuccess)])
        let service = try makeService(server, database: database)
        let fresh = try await service.rates(base: usd, now: at(RatesFixtures.lastUpdate + 60))
        try await server.stop()

        let later = RatesFixtures.nextUpdate + 7_200
        let stale = try await service.rates(base: usd, now: at(later))
        #expect(stale.isStale)
        #expect(stale.age == later - RatesFixtures.lastUpdate)
        #expect(stale.snapshot.rates == fresh.snapshot.rates)
        guard case .transport(.connectFailed) = stale.staleReason else {
            Issue.record("expected a connection error as the reason, got \(String(describing: stale.staleReason))")
            return
        }

        // Conversions still work, and say the rates are stale.
        let quote = try await service.convert(
            Money(minorUnits: 10_000, currency: usd), to: try CurrencyCode("EUR"), now: at(later + 1))
        #expect(quote.converted.minorUnits == 9_013)
        #expect(quote.isStale)
        #expect(quote.ratesAge == later + 1 - RatesFixtures.lastUpdate)
    }

    @Test("with nothing cached and the server gone, the error says no rates are available and why")
    func nothingCached() async throws {
        let server = try await FixtureServer.start([:])
        let service = try makeService(server, database: try AppDatabase.inMemory())
        try await server.stop()

        let error = await #expect(throws: RatesError.self) {
            try await service.rates(base: usd, now: at(RatesFixtures.lastUpdate))
        }
        guard case .noRatesAvailable(let base, .transport(.connectFailed)) = error else {
            Issue.record("expected noRatesAvailable caused by a connection error, got \(String(describing: error))")
            return
        }
        #expect(base == "USD")
        #expect(error?.description.hasPrefix("no exchange rates available for USD: could not fetch") == true)
    }

    @Test("after a failure the provider is not asked again within the minimum interval")
    func failureBackoff() async throws {
        try await withFixtureServer([path: .body(status: 500, "down")]) { server in
            let service = try makeService(server, database: try AppDatabase.inMemory())
            let now = RatesFixtures.lastUpdate
            for offset: Int64 in [0, 1, 59] {
                await #expect(throws: RatesError.self) { try await service.rates(base: usd, now: at(now + offset)) }
            }
            #expect(server.requestCount(path) == 1)
            await #expect(throws: RatesError.self) { try await service.rates(base: usd, now: at(now + 60)) }
            #expect(server.requestCount(path) == 2)
        }
    }

    @Test("concurrent questions share one fetch")
    func coalescing() async throws {
        try await withFixtureServer([path: .body(status: 200, RatesFixtures.usdSuccess)]) { server in
            let service = try makeService(server, database: try AppDatabase.inMemory())
            let now = at(RatesFixtures.lastUpdate)
            try await withThrowingTaskGroup(of: CurrentRates.self) { group in
                for _ in 0..<8 { group.addTask { try await service.rates(base: usd, now: now) } }
                for try await rates in group { #expect(!rates.isStale) }
            }
            #expect(server.requestCount(path) == 1)
        }
    }

    @Test("conversions go through the service's base with cross rates")
    func convertThroughService() async throws {
        try await withFixtureServer([path: .body(status: 200, RatesFixtures.usdSuccess)]) { server in
            let service = try makeService(server, database: try AppDatabase.inMemory())
            let quote = try await service.convert(
                Money(minorUnits: 10_000, currency: try CurrencyCode("EUR")), to: try CurrencyCode("JPY"),
                now: at(RatesFixtures.lastUpdate))
            #expect(quote.converted == Money(minorUnits: 16_780, currency: try CurrencyCode("JPY")))
            #expect(quote.base == usd)
            #expect(quote.ratesUpdatedAt == at(RatesFixtures.lastUpdate))
            #expect(!quote.isStale)
            await #expect(throws: RatesError.unsupportedCurrency(code: "CLF", base: "USD")) {
                try await service.convert(
                    Money(minorUnits: 100, currency: usd), to: try CurrencyCode("CLF"),
                    now: at(RatesFixtures.lastUpdate))
            }
        }
    }

    @Test("the rateSnapshot table refuses rows that break its rules")
    func schemaChecks() async throws {
        let database = try AppDatabase.inMemory()
        let good = try RateSnapshotRecord(
            base: usd, fetchedAt: at(10), lastUpdate: at(5), nextUpdate: at(20), source: "https://x",
            rates: ["USD": "1", "EUR": "0.9013"])
        try await database.saveRateSnapshot(good)
        #expect(try await database.rateSnapshot(base: usd) == good)
        // Saving again replaces the row of the same base.
        var newer = good
        newer.fetchedAt = at(30)
        try await database.saveRateSnapshot(newer)
        #expect(try await database.rateSnapshot(base: usd)?.fetchedAt == at(30))

        var badJSON = good
        badJSON.ratesJSON = "[1]"
        await #expect(throws: StoreError.self) { try await database.saveRateSnapshot(badJSON) }
        var badSource = good
        badSource.source = ""
        await #expect(throws: StoreError.self) { try await database.saveRateSnapshot(badSource) }
        var badTime = good
        badTime.fetchedAt = at(-1)
        await #expect(throws: StoreError.self) { try await database.saveRateSnapshot(badTime) }
    }
}
