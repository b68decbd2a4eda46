import InterPayCore
import InterPayRates
import InterPayStore
import Logging

/// Response bodies and helpers shared by the rates tests.
enum RatesFixtures {
    /// `time_last_update_unix` of the fixtures (2023-11-14T22:13:20Z).
    static let lastUpdate: Int64 = 1_700_000_000
    /// `time_next_update_unix` of the fixtures, one day later.
    static let nextUpdate: Int64 = 1_700_086_400

    /// A USD success body with tricky numbers: exponents, many digits, trailing zeros.
    static let usdSuccess = """
        {
          "result": "success",
          "documentation": "https://www.exchangerate-api.com/docs",
          "time_last_update_unix": 1700000000,
          "time_last_update_utc": "Tue, 14 Nov 2023 22:13:20 +0000",
          "time_next_update_unix": 1700086400,
          "base_code": "USD",
          "conversion_rates": {
            "USD": 1,
            "EUR": 0.9013,
            "JPY": 151.23456789,
            "KWD": 0.30845,
            "GBP": 0.8,
            "AED": 3.6725,
            "BTN": 1.0e-5,
            "MXN": 17.0500,
            "IDR": 15674.5E0,
            "CHF": 0.88e+0,
            "XAG": 0.0434
          }
        }
        """

    /// A success body for a base the tests did not ask for.
    static let eurSuccess = """
        {"result":"success","base_code":"EUR","time_last_update_unix":1700000000,
         "time_next_update_unix":1700086400,"conversion_rates":{"EUR":1,"USD":1.1095}}
        """

    /// An error document of `type`.
    static func errorBody(_ type: String) -> String {
        #"{"result":"error","documentation":"https://www.exchangerate-api.com/docs","error-type":"\#(type)"}"#
    }

    /// A client for the fixture server: short timeouts, a small body limit, no proxy for loopback.
    static func client(timeout: Duration = .seconds(5), maximumResponseBytes: Int = 64 * 1024) -> CurlHTTPClient {
        CurlHTTPClient(
            version: "1.2.3-test", connectTimeout: .seconds(5), timeout: timeout,
            maximumResponseBytes: maximumResponseBytes, noProxy: "127.0.0.1")
    }

    /// A provider reading `<prefix>/<base>` from `server`, e.g. `/m/USD`.
    static func provider(
        _ server: FixtureServer, prefix: String, key: RatesAPIKey? = nil, client: CurlHTTPClient = client()
    ) throws -> ExchangeRateAPIProvider {
        try ExchangeRateAPIProvider(client: client, urlTemplate: server.url(prefix + "/{base}"), apiKey: key)
    }

    /// The currency `code`, which the test knows to exist.
    static func currency(_ code: String) throws -> CurrencyCode { try CurrencyCode(code) }

    /// A logger that discards everything.
    static let quietLogger = Logger(label: "interpay.rates.test") { _ in SwiftLogNoOpLogHandler() }
}
