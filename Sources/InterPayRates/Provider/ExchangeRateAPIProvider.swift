import Foundation
public import InterPayCore
import InterPayJSON

/// Fetches rates from ExchangeRate-API's v6 JSON format, reading every rate exactly.
///
/// The URL is a template: `{base}` becomes the base currency's code and `{key}` the API key. The default is the
/// keyless open endpoint; with a key, use e.g. `https://v6.exchangerate-api.com/v6/{key}/latest/{base}`.
///
/// A success body looks like `{"result":"success","base_code":"USD","conversion_rates":{"USD":1,"EUR":0.9013},
/// "time_last_update_unix":1700000000,"time_next_update_unix":1700086400}` (the open endpoint names the rates
/// `rates`, which is accepted too); an error body like `{"result":"error","error-type":"invalid-key"}`, with a 2xx
/// or an error status. Rates are read from the number text into `ExactDecimal`, never through `Double`.
///
/// The key never leaves this type unmasked except inside the request URL handed to the HTTP client: `source`,
/// every error and every URL it reports have the key replaced by `RatesAPIKey.mask`.
public struct ExchangeRateAPIProvider: RatesProvider {
    /// The keyless open endpoint, used when no template is configured.
    public static let defaultURLTemplate = "https://open.er-api.com/v6/latest/{base}"
    /// The deepest nesting read in a body (the v6 format nests two levels); bodies are capped by the HTTP client.
    static let maximumDepth = 32

    /// The URL template, with `{base}` and optionally `{key}`.
    public let urlTemplate: String
    private let apiKey: RatesAPIKey?
    private let client: any HTTPClient

    /// A provider fetching through `client` from `urlTemplate`; the template is checked by
    /// `validate(urlTemplate:apiKey:)`.
    public init(
        client: any HTTPClient, urlTemplate: String = defaultURLTemplate, apiKey: RatesAPIKey? = nil
    ) throws(RatesError) {
        try Self.validate(urlTemplate: urlTemplate, apiKey: apiKey)
        self.urlTemplate = urlTemplate
        self.apiKey = apiKey
        self.client = client
    }

    /// Checks a URL template without making a provider (the configuration does, before anything is fetched).
    ///
    /// The template must be an `http` or `https` URL containing `{base}`, without spaces or control characters; a
    /// template containing `{key}` needs `apiKey`, and sends it over plain `http` only to a loopback host.
    public static func validate(urlTemplate: String, apiKey: RatesAPIKey?) throws(RatesError) {
        let shown = apiKey?.redact(urlTemplate) ?? urlTemplate
        let lowercased = urlTemplate.lowercased()
        guard lowercased.hasPrefix("https://") || lowercased.hasPrefix("http://") else {
            throw .invalidURLTemplate(template: shown, reason: "it must start with https:// or http://")
        }
        guard urlTemplate.contains("{base}") else {
            throw .invalidURLTemplate(template: shown, reason: "it must contain {base}")
        }
        guard !urlTemplate.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalidURLTemplate(template: shown, reason: "it must not contain spaces or control characters")
        }
        if urlTemplate.contains("{key}"), apiKey == nil { throw .missingAPIKey }
        if urlTemplate.contains("{key}"), lowercased.hasPrefix("http://"), !isLoopback(urlTemplate) {
            throw .invalidURLTemplate(
                template: shown, reason: "an API key is sent only over https:// (plain http only to a loopback host)")
        }
    }

    /// Whether the host of an `http://` URL is a loopback address (`127.0.0.0/8`, `::1` or `localhost`).
    static func isLoopback(_ url: String) -> Bool {
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@").last.map(String.init) ?? ""
        let host: Substring =
            hostAndPort.hasPrefix("[")
            ? hostAndPort.dropFirst().prefix { $0 != "]" } : hostAndPort.prefix { $0 != ":" }
        let lower = host.lowercased()
        if lower == "localhost" || lower == "::1" { return true }
        let octets = lower.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The template with the key masked (if it appears in it at all).
    public var source: String { redact(urlTemplate) }

    /// The URL fetched for `base`, with the key masked: safe to log.
    public func redactedURL(for base: CurrencyCode) -> String {
        redact(url(for: base))
    }

    /// `text` with the API key masked; unchanged when there is no key.
    public func redact(_ text: String) -> String {
        apiKey?.redact(text) ?? text
    }

    /// Fetches and parses the rates of `base`; see the type's documentation for the formats.
    public func fetchRates(base: CurrencyCode, now: Timestamp) async throws(RatesError) -> RateSnapshot {
        let url = url(for: base)
        let shownURL = redact(url)
        let response: HTTPResponse
        do {
            response = try await client.get(url: url)
        } catch {
            // An error status with an error document: the document says more than the status.
            if case .httpStatus(_, _, let body) = error, let type = Self.errorType(in: body) {
                throw .api(type, base: base.code, url: shownURL)
            }
            throw .transport(error.redacting(redact))
        }
        return try Self.parse(body: response.body, base: base, url: shownURL, fetchedAt: now)
    }

    /// The real URL for `base`, key included: handed to the HTTP client only.
    func url(for base: CurrencyCode) -> String {
        var url = urlTemplate.replacingOccurrences(of: "{base}", with: base.code)
        if let apiKey { url = url.replacingOccurrences(of: "{key}", with: apiKey.secret) }
        return url
    }

    // MARK: Parsing

    /// Parses a body of the v6 format into a snapshot of `base` fetched at `fetchedAt`; `url` (masked) is only
    /// used in errors.
    static func parse(
        body: [UInt8], base: CurrencyCode, url: String, fetchedAt: Timestamp
    ) throws(RatesError)
        -> RateSnapshot
    {
        let document: JSONTree
        do {
            document = try JSONTree.parse(body, maximumDepth: Self.maximumDepth, duplicateMembers: .keep)
        } catch {
            throw .malformedResponse(url: url, reason: "the body is not JSON: \(error)")
        }
        guard case .object = document else {
            throw .malformedResponse(url: url, reason: "expected a JSON object, got \(document.kind)")
        }
        guard let result = document["result"]?.stringValue else {
            throw .malformedResponse(url: url, reason: "the \"result\" field is missing")
        }
        if result == "error" {
            guard let type = errorType(in: document) else {
                throw .malformedResponse(url: url, reason: "an error without an \"error-type\"")
            }
            throw .api(type, base: base.code, url: url)
        }
        guard result == "success" else {
            throw .malformedResponse(url: url, reason: "\"result\" is '\(printable(result))', not 'success'")
        }
        guard let baseCode = document["base_code"]?.stringValue else {
            throw .malformedResponse(url: url, reason: "the \"base_code\" field is missing")
        }
        guard baseCode == base.code else {
            throw .malformedResponse(url: url, reason: "asked for \(base) rates, got '\(printable(baseCode))' rates")
        }
        let lastUpdate = try timestamp(document, "time_last_update_unix", url: url)
        let nextUpdate = try timestamp(document, "time_next_update_unix", url: url)
        // Rates from the future would never show their age (nor ever be stale): a day of clock skew is allowed.
        guard lastUpdate <= fetchedAt.adding(seconds: 86_400) else {
            throw .malformedResponse(url: url, reason: "\"time_last_update_unix\" is more than a day ahead")
        }
        guard case .object(let members) = document["conversion_rates"] ?? document["rates"] else {
            throw .malformedResponse(url: url, reason: "the \"conversion_rates\" object is missing")
        }

        var rates: [String: ExactDecimal] = [:]
        for member in members {
            let code = member.key
            guard code.utf8.count == 3, code.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
            else {
                throw .malformedResponse(url: url, reason: "'\(printable(code))' is not a currency code")
            }
            guard rates[code] == nil else {
                throw .malformedResponse(url: url, reason: "the rate of \(code) is listed twice")
            }
            guard let text = member.value.numberText else {
                throw .invalidRate(currency: code, text: member.value.kind, reason: "it is not a number")
            }
            let rate: ExactDecimal
            do {
                rate = try ExactDecimal(parsing: text)
            } catch {
                throw .invalidRate(currency: code, text: text, reason: error.description)
            }
            guard !rate.isZero else {
                throw .invalidRate(currency: code, text: text, reason: "a rate must be greater than zero")
            }
            rates[code] = rate
        }
        if let own = rates[base.code], own != .one {
            throw .malformedResponse(url: url, reason: "the rate of the base \(base) is \(own), not 1")
        }
        return RateSnapshot(
            base: base, rates: rates, lastUpdate: lastUpdate, nextUpdate: nextUpdate, fetchedAt: fetchedAt,
            source: url)
    }

    /// The `error-type` of an error document in `body`, if it is one.
    static func errorType(in body: [UInt8]) -> ExchangeRateAPIErrorType? {
        guard let document = try? JSONTree.parse(body, maximumDepth: Self.maximumDepth, duplicateMembers: .keep),
            document["result"]?.stringValue == "error"
        else {
            return nil
        }
        return errorType(in: document)
    }

    private static func errorType(in document: JSONTree) -> ExchangeRateAPIErrorType? {
        guard let text = document["error-type"]?.stringValue else { return nil }
        return ExchangeRateAPIErrorType(rawValue: printable(text))
    }

    /// A Unix time field: a non-negative integer.
    private static func timestamp(
        _ document: JSONTree, _ field: String, url: String
    ) throws(RatesError)
        -> Timestamp
    {
        guard let value = document[field] else {
            throw .malformedResponse(url: url, reason: "the \"\(field)\" field is missing")
        }
        guard let text = value.numberText,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let seconds = Int64(text)
        else {
            throw .malformedResponse(url: url, reason: "\"\(field)\" is not a Unix time in whole seconds")
        }
        return Timestamp(secondsSince1970: seconds)
    }

    /// Text from the server made safe for a message: printable ASCII only, at most 64 characters.
    private static func printable(_ text: String) -> String {
        let scalars = text.unicodeScalars.prefix(64).map { (0x20..<0x7F).contains($0.value) ? Character($0) : "?" }
        return String(scalars) + (text.unicodeScalars.count > 64 ? "…" : "")
    }
}
