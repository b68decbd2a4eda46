import InterPayRates

/// An HTTP client that never sends anything: used to validate a rates URL template while reading the configuration.
struct NoHTTPClient: HTTPClient {
    func get(url: String) async throws(HTTPError) -> HTTPResponse {
        throw .other(url: url, code: 0, detail: "not for sending")
    }
}
