import InterPayCore
import InterPayDaemon
import InterPayTestSupport
import Testing

@testable import InterPayRates

@Suite("ExchangeRate-API v6 provider against a loopback server")
struct ExchangeRateAPIProviderTests {
    private let usd: CurrencyCode
    private let fetchTime = Timestamp(secondsSince1970: RatesFixtures.lastUpdate + 120)

    init() throws {
        usd = try CurrencyCode("USD")
    }

    @Test("a success body becomes a snapshot with every rate exact")
    func success() async throws {
        try await withFixtureServer(["/v6/latest/USD": .body(status: 200, RatesFixtures.usdSuccess)]) { server in
            let provider = try ExchangeRateAPIProvider(
                client: RatesFixtures.client(), urlTemplate: server.url("/v6/latest/{base}"))
            let snapshot = try await provider.fetchRates(base: usd, now: fetchTime)
            #expect(snapshot.base == usd)
            #expect(snapshot.lastUpdate.secondsSince1970 == RatesFixtures.lastUpdate)
            #expect(snapshot.nextUpdate.secondsSince1970 == RatesFixtures.nextUpdate)
            #expect(snapshot.fetchedAt == fetchTime)
            #expect(snapshot.source == server.url("/v6/latest/USD"))
            let texts = snapshot.rates.mapValues(\.description)
            #expect(
                texts == [
                    "USD": "1", "EUR": "0.9013", "JPY": "151.23456789", "KWD": "0.30845", "GBP": "0.8",
                    "AED": "3.6725", "BTN": "0.00001", "MXN": "17.05", "IDR": "15674.5", "CHF": "0.88",
                    "XAG": "0.0434",
                ])
            #expect(server.requestCount("/v6/latest/USD") == 1)
        }
    }

    @Test(
        "each error-type is explained in words a user understands",
        arguments: [
            ("unsupported-code", ExchangeRateAPIErrorType.unsupportedCode, "does not support USD as a base currency"),
            ("malformed-request", .malformedRequest, "did not understand the request"),
            (
                "invalid-key", .invalidKey,
                "the exchange-rate API key is not valid; set INTERPAY_RATES_API_KEY or rates_api_key"
            ),
            ("inactive-account", .inactiveAccount, "account is not active yet"),
            ("quota-reached", .quotaReached, "used all the requests its plan allows"),
        ])
    func errorTypes(type: String, expected: ExchangeRateAPIErrorType, message: String) async throws {
        // ExchangeRate-API answers errors with a 200 or with an error status; both must read the document.
        try await withFixtureServer([
            "/ok-status/USD": .body(status: 200, RatesFixtures.errorBody(type)),
            "/error-status/USD": .body(status: 403, RatesFixtures.errorBody(type)),
        ]) { server in
            for prefix in ["/ok-status", "/error-status"] {
                let provider = try RatesFixtures.provider(server, prefix: prefix)
                let error = await #expect(throws: RatesError.self) {
                    try await provider.fetchRates(base: usd, now: fetchTime)
                }
                #expect(error == .api(expected, base: "USD", url: server.url(prefix + "/USD")))
                #expect(error?.description.contains(message) == true, "\(String(describing: error))")
            }
        }
    }

    @Test("an unknown error-type is reported as the service named it")
    func unknownErrorType() async throws {
        try await withFixtureServer(["/e/USD": .body(status: 200, RatesFixtures.errorBody("plan-upgrade-required"))]) {
            server in
            let error = await #expect(throws: RatesError.self) {
                try await RatesFixtures.provider(server, prefix: "/e").fetchRates(base: usd, now: fetchTime)
            }
            #expect(error == .api(.unknown("plan-upgrade-required"), base: "USD", url: server.url("/e/USD")))
            #expect(error?.description.contains("reported an error: plan-upgrade-required") == true)
        }
    }

    @Test(
        "malformed bodies are clear errors",
        arguments: [
            ("not json", "the body is not JSON"),
            (#"{"result":"success","base_code":"USD","conversion_rates":{"EUR":0.9"#, "the body is not JSON"),
            (#"[1,2]"#, "expected a JSON object"),
            (#"{"base_code":"USD"}"#, "\"result\" field is missing"),
            (#"{"result":"error"}"#, "an error without an \"error-type\""),
            (#"{"result":"maybe"}"#, "not 'success'"),
            (
                #"{"result":"success","base_code":"EUR","time_last_update_unix":1,"time_next_update_unix":2,"conversion_rates":{}}"#,
                "asked for USD rates, got 'EUR' rates"
            ),
            (
                #"{"result":"success","base_code":"USD","time_next_update_unix":2,"conversion_rates":{}}"#,
                "\"time_last_update_unix\" field is missing"
            ),
            (
                #"{"result":"success","base_code":"USD","time_last_update_unix":1.5,"time_next_update_unix":2,"conversion_rates":{}}"#,
                "not a Unix time"
            ),
            (
                #"{"result":"success","base_code":"USD","time_last_update_unix":1,"time_next_update_unix":2}"#,
                "\"conversion_rates\" object is missing"
            ),
            (
                #"{"result":"success","base_code":"USD","time_last_update_unix":1,"time_next_update_unix":2,"conversion_rates":{"eur":1}}"#,
                "'eur' is not a currency code"
            ),
            (
                #"{"result":"success","base_code":"USD","time_last_update_unix":1,"time_next_update_unix":2,"conversion_rates":{"EUR":1,"EUR":2}}"#,
                "the rate of EUR is listed twice"
            ),
            (
                #"{"result":"success","base_code":"USD","time_last_update_unix":1,"time_next_update_unix":2,"conversion_rates":{"USD":2}}"#,
                "the rate of the base USD is 2, not 1"
            ),
        ])
    func malformed(body: String, message: String) async throws {
        try await withFixtureServer(["/m/USD": .body(status: 200, body)]) { server in
            let error = await #expect(throws: RatesError.self) {
                try await RatesFixtures.provider(server, prefix: "/m").fetchRates(base: usd, now: fetchTime)
            }
            guard case .malformedResponse(let url, let reason) = error else {
                Issue.record("expected a malformed response, got \(String(describing: error))")
                return
            }
            #expect(url == server.url("/m/USD"))
            #expect(reason.contains(message), "\(reason)")
        }
    }

    @Test(
        "negative, zero and non-numeric rates are refused with the currency named",
        arguments: [
            (#""EUR":-0.9"#, "EUR", "'-0.9' is negative"),
            (#""JPY":0"#, "JPY", "greater than zero"),
            (#""JPY":0.000"#, "JPY", "greater than zero"),
            (#""GBP":"0.8""#, "GBP", "it is not a number"),
            (#""KWD":1e99"#, "KWD", "outside the supported range"),
            (#""AED":1.23456789012345678901"#, "AED", "more than 19 significant digits"),
        ])
    func invalidRates(member: String, currency: String, message: String) async throws {
        let body = """
            {"result":"success","base_code":"USD","time_last_update_unix":1,"time_next_update_unix":2,
             "conversion_rates":{"USD":1,\(member)}}
            """
        try await withFixtureServer(["/r/USD": .body(status: 200, body)]) { server in
            let error = await #expect(throws: RatesError.self) {
                try await RatesFixtures.provider(server, prefix: "/r").fetchRates(base: usd, now: fetchTime)
            }
            guard case .invalidRate(let named, _, _) = error else {
                Issue.record("expected an invalid rate, got \(String(describing: error))")
                return
            }
            #expect(named == currency)
            #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        }
    }

    @Test("HTTP 500 without an error document is a transport error keeping the status")
    func serverError() async throws {
        try await withFixtureServer(["/down/USD": .body(status: 500, "<html>Internal Server Error</html>")]) { server in
            let error = await #expect(throws: RatesError.self) {
                try await RatesFixtures.provider(server, prefix: "/down").fetchRates(base: usd, now: fetchTime)
            }
            guard case .transport(.httpStatus(_, let status, _)) = error else {
                Issue.record("expected an HTTP status error, got \(String(describing: error))")
                return
            }
            #expect(status == 500)
            #expect(error?.description.contains("answered with HTTP status 500") == true)
        }
    }

    @Test("a slow server is a timeout and a huge body is too large")
    func timeoutAndSize() async throws {
        try await withFixtureServer([
            "/slow/USD": .delayed(.seconds(60), RatesFixtures.usdSuccess),
            "/huge/USD": .chunked(chunks: 40, chunkSize: 64 * 1024),
        ]) { server in
            let slow = try RatesFixtures.provider(
                server, prefix: "/slow", client: RatesFixtures.client(timeout: .milliseconds(300)))
            let timeout = await #expect(throws: RatesError.self) {
                try await slow.fetchRates(base: usd, now: fetchTime)
            }
            guard case .transport(.timedOut) = timeout else {
                Issue.record("expected a timeout, got \(String(describing: timeout))")
                return
            }
            let huge = try RatesFixtures.provider(server, prefix: "/huge")
            await #expect(throws: RatesError.transport(.tooLarge(url: server.url("/huge/USD"), limit: 64 * 1024))) {
                try await huge.fetchRates(base: usd, now: fetchTime)
            }
        }
    }

    @Test("the API key is used in the request but masked in every URL, error and log line")
    func keyRedaction() async throws {
        let secret = "0123456789abcdef01234567"
        let key = try RatesAPIKey(secret)
        try await withFixtureServer([
            "/v6/\(secret)/latest/USD": .body(status: 200, RatesFixtures.errorBody("invalid-key")),
            "/v6/\(secret)/latest/EUR": .body(status: 500, "oops"),
        ]) { server in
            let provider = try ExchangeRateAPIProvider(
                client: RatesFixtures.client(), urlTemplate: server.url("/v6/{key}/latest/{base}"), apiKey: key)
            #expect(provider.source == server.url("/v6/{key}/latest/{base}"))
            #expect(provider.redactedURL(for: usd) == server.url("/v6/****/latest/USD"))
            #expect(provider.url(for: usd) == server.url("/v6/\(secret)/latest/USD"))

            let invalid = await #expect(throws: RatesError.self) {
                try await provider.fetchRates(base: usd, now: fetchTime)
            }
            // The key did reach the server (the route with it in the path answered).
            #expect(server.requestCount("/v6/\(secret)/latest/USD") == 1)
            #expect(invalid == .api(.invalidKey, base: "USD", url: server.url("/v6/****/latest/USD")))
            #expect(invalid?.description.contains(secret) == false)

            let failed = await #expect(throws: RatesError.self) {
                try await provider.fetchRates(base: try CurrencyCode("EUR"), now: fetchTime)
            }
            #expect(failed?.description.contains(secret) == false)
            #expect(failed?.description.contains("/v6/****/latest/EUR") == true)

            // Through the service, with its logging.
            let storage = RecordingLogHandler.Storage()
            let service = RatesService(
                cache: LedgerRatesCache(database: try .inMemory()), provider: provider, base: usd,
                logger: RecordingLogHandler.logger("interpay.rates.test", storage: storage))
            let unavailable = await #expect(throws: RatesError.self) {
                try await service.rates(base: usd, now: fetchTime)
            }
            #expect(unavailable?.description.contains(secret) == false)
            #expect(!storage.lines.isEmpty)
            #expect(storage.lines.allSatisfy { !$0.contains(secret) }, "\(storage.lines)")
        }
    }

    @Test("the key never prints and text is masked wherever it appears")
    func keyPrinting() throws {
        let key = try RatesAPIKey("SECRET-key_1.2~x")
        #expect("\(key)" == "****")
        #expect(String(reflecting: key) == "RatesAPIKey(****)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("SECRET"))
        #expect(
            key.redact("https://h/v6/SECRET-key_1.2~x/latest/USD?k=SECRET-key_1.2~x")
                == "https://h/v6/****/latest/USD?k=****")
        #expect(key.redact("nothing to hide") == "nothing to hide")
    }

    @Test("keys come from INTERPAY_RATES_API_KEY, trimmed; blank means none; malformed keys are refused unrepeated")
    func keyFromEnvironment() throws {
        #expect(try RatesAPIKey.fromEnvironment([:]) == nil)
        #expect(try RatesAPIKey.fromEnvironment(["INTERPAY_RATES_API_KEY": "  \n"]) == nil)
        let key = try RatesAPIKey.fromEnvironment(["INTERPAY_RATES_API_KEY": " abcdef123456\n"])
        #expect(key == (try RatesAPIKey("abcdef123456")))
        let error = #expect(throws: RatesError.self) {
            try RatesAPIKey.fromEnvironment(["INTERPAY_RATES_API_KEY": "bad key/with?chars"])
        }
        #expect(error?.description.contains("bad key") == false)
        #expect(error?.description.contains("INTERPAY_RATES_API_KEY") == true)
        #expect(throws: RatesError.self) { try RatesAPIKey("short") }
    }

    @Test("URL templates are checked: scheme, {base}, and a key when {key} is used")
    func templates() throws {
        let client = RatesFixtures.client()
        #expect(
            try ExchangeRateAPIProvider(client: client).source == "https://open.er-api.com/v6/latest/{base}")
        #expect(throws: RatesError.missingAPIKey) {
            try ExchangeRateAPIProvider(client: client, urlTemplate: "https://h/v6/{key}/latest/{base}")
        }
        #expect(throws: RatesError.self) { try ExchangeRateAPIProvider(client: client, urlTemplate: "https://h/v6") }
        #expect(throws: RatesError.self) {
            try ExchangeRateAPIProvider(client: client, urlTemplate: "ftp://h/{base}")
        }
        #expect(throws: RatesError.self) {
            try ExchangeRateAPIProvider(client: client, urlTemplate: "https://h/{base} x")
        }
        #expect(
            RatesError.missingAPIKey.description
                == "the exchange-rate URL needs an API key; set INTERPAY_RATES_API_KEY or rates_api_key")
    }
}

@Suite("Rates: no downgrade of the key to plain HTTP")
struct RatesDowngradeTests {
    @Test("a template with {key} over http:// is refused unless the host is a loopback address")
    func keyOverHTTP() throws {
        let key = try RatesAPIKey("secret-key-123")
        let client = RatesFixtures.client()
        #expect(throws: RatesError.self) {
            try ExchangeRateAPIProvider(
                client: client, urlTemplate: "http://v6.example.org/v6/{key}/latest/{base}", apiKey: key)
        }
        #expect(throws: RatesError.self) {
            try ExchangeRateAPIProvider(
                client: client, urlTemplate: "http://127.0.0.1.example.org/{key}/{base}", apiKey: key)
        }
        for template in [
            "https://v6.example.org/v6/{key}/latest/{base}", "http://127.0.0.1:8080/{key}/{base}",
            "http://localhost/{key}/{base}", "http://[::1]:9/{key}/{base}",
        ] {
            _ = try ExchangeRateAPIProvider(client: client, urlTemplate: template, apiKey: key)
        }
    }

    @Test("a redirect from https may only lead to https")
    func redirectProtocols() {
        #expect(CurlHTTPClient.redirectProtocols(for: "https://v6.example.org/x") == "https")
        #expect(CurlHTTPClient.redirectProtocols(for: "HTTPS://v6.example.org/x") == "https")
        #expect(CurlHTTPClient.redirectProtocols(for: "http://127.0.0.1:9/x") == "http,https")
    }
}
