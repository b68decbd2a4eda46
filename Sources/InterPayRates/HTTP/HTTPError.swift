/// Why an HTTP fetch failed, with the URL and the transport's own explanation.
///
/// URLs and details are included as given; callers that put secrets into URLs must mask them with
/// `redacting(_:)` before logging or showing the error (`ExchangeRateAPIProvider` does).
public enum HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is malformed or not `http`/`https`.
    case invalidURL(url: String, detail: String)
    /// The host name (or the proxy's) could not be resolved.
    case dnsFailure(url: String, detail: String)
    /// No connection could be made (refused, unreachable).
    case connectFailed(url: String, detail: String)
    /// The connection or the whole transfer took longer than allowed.
    case timedOut(url: String, detail: String)
    /// The TLS handshake failed or the server's certificate was not trusted for its name.
    case tls(url: String, detail: String)
    /// The server answered with a status outside 2xx; `body` is what it sent (capped like any body).
    case httpStatus(url: String, status: Int, body: [UInt8])
    /// The body was larger than `limit` bytes; the transfer was abandoned.
    case tooLarge(url: String, limit: Int)
    /// The server redirected more than `limit` times.
    case tooManyRedirects(url: String, limit: Int)
    /// The task waiting for the response was cancelled; the transfer was abandoned.
    case cancelled(url: String)
    /// Anything else the transport reported, with its code.
    case other(url: String, code: Int, detail: String)

    /// The URL that was fetched.
    public var url: String {
        switch self {
        case .invalidURL(let url, _), .dnsFailure(let url, _), .connectFailed(let url, _), .timedOut(let url, _),
            .tls(let url, _), .httpStatus(let url, _, _), .tooLarge(let url, _), .tooManyRedirects(let url, _),
            .cancelled(let url), .other(let url, _, _):
            url
        }
    }

    /// The same error with `transform` applied to every text it carries (the URL and the detail), e.g. to mask an
    /// API key.
    public func redacting(_ transform: (String) -> String) -> HTTPError {
        switch self {
        case .invalidURL(let url, let detail): .invalidURL(url: transform(url), detail: transform(detail))
        case .dnsFailure(let url, let detail): .dnsFailure(url: transform(url), detail: transform(detail))
        case .connectFailed(let url, let detail): .connectFailed(url: transform(url), detail: transform(detail))
        case .timedOut(let url, let detail): .timedOut(url: transform(url), detail: transform(detail))
        case .tls(let url, let detail): .tls(url: transform(url), detail: transform(detail))
        case .httpStatus(let url, let status, let body): .httpStatus(url: transform(url), status: status, body: body)
        case .tooLarge(let url, let limit): .tooLarge(url: transform(url), limit: limit)
        case .tooManyRedirects(let url, let limit): .tooManyRedirects(url: transform(url), limit: limit)
        case .cancelled(let url): .cancelled(url: transform(url))
        case .other(let url, let code, let detail): .other(url: transform(url), code: code, detail: transform(detail))
        }
    }

    /// A one-line explanation for a log line or a person, with the URL (as given: mask secrets first).
    public var description: String {
        switch self {
        case .invalidURL(let url, let detail):
            "'\(url)' is not a usable http or https URL (\(detail))"
        case .dnsFailure(let url, let detail):
            "cannot resolve the host of \(url) (\(detail)); check the network and DNS settings"
        case .connectFailed(let url, let detail):
            "cannot connect to \(url) (\(detail))"
        case .timedOut(let url, let detail):
            "\(url) did not answer in time (\(detail))"
        case .tls(let url, let detail):
            "secure connection to \(url) failed (\(detail)); the server's certificate may not be trusted"
        case .httpStatus(let url, let status, _):
            "\(url) answered with HTTP status \(status)"
        case .tooLarge(let url, let limit):
            "the response from \(url) is larger than \(limit) bytes"
        case .tooManyRedirects(let url, let limit):
            "\(url) redirected more than \(limit) times"
        case .cancelled(let url):
            "the request to \(url) was cancelled"
        case .other(let url, let code, let detail):
            "fetching \(url) failed (\(detail), libcurl error \(code))"
        }
    }
}
