/// Why exchange rates could not be fetched, read or used, with the context a log line or CLI message needs.
///
/// No case ever contains the API key: URLs and transport details are masked before they are put in.
public indirect enum RatesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP request failed (DNS, connection, timeout, TLS, status, size…); the URL is masked.
    case transport(HTTPError)
    /// The service answered with an error document.
    case api(ExchangeRateAPIErrorType, base: String, url: String)
    /// The body is not the JSON document expected.
    case malformedResponse(url: String, reason: String)
    /// A rate in the response is not a positive decimal number.
    case invalidRate(currency: String, text: String, reason: String)
    /// The URL template needs an API key (`{key}`) and none was given.
    case missingAPIKey
    /// The API key given has an impossible shape (the key itself is not repeated).
    case invalidAPIKey(reason: String)
    /// The URL template is not usable.
    case invalidURLTemplate(template: String, reason: String)
    /// No rates could be fetched and none are cached.
    case noRatesAvailable(base: String, cause: RatesError)
    /// The rates have no rate for a currency.
    case unsupportedCurrency(code: String, base: String)
    /// The converted amount does not fit in 64-bit minor units of the target currency.
    case conversionOverflow(amount: String, to: String)

    /// A one-line explanation for a log line or a person; never contains the API key.
    public var description: String {
        switch self {
        case .transport(let error):
            "could not fetch exchange rates: \(error)"
        case .api(.unsupportedCode, let base, let url):
            "the exchange-rate service does not support \(base) as a base currency (\(url))"
        case .api(let type, _, let url):
            "\(type) (\(url))"
        case .malformedResponse(let url, let reason):
            "the exchange-rate service sent an unexpected response (\(url)): \(reason)"
        case .invalidRate(let currency, let text, let reason):
            "the exchange rate for \(currency) ('\(text)') is not usable: \(reason)"
        case .missingAPIKey:
            "the exchange-rate URL needs an API key; set \(RatesAPIKey.environmentVariable) or rates_api_key"
        case .invalidAPIKey(let reason):
            "the exchange-rate API key is malformed: \(reason); check \(RatesAPIKey.environmentVariable) or "
                + "rates_api_key"
        case .invalidURLTemplate(let template, let reason):
            "the exchange-rate URL '\(template)' is not usable: \(reason)"
        case .noRatesAvailable(let base, let cause):
            "no exchange rates available for \(base): \(cause)"
        case .unsupportedCurrency(let code, let base):
            "no exchange rate for \(code) (the \(base) rates do not list it)"
        case .conversionOverflow(let amount, let to):
            "converting \(amount) to \(to) gives an amount too large to represent"
        }
    }
}
