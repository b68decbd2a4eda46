/// Fetches a URL with HTTP GET. `CurlHTTPClient` is the real one; tests may substitute their own.
public protocol HTTPClient: Sendable {
    /// Fetches `url` and returns the response when its status is 2xx.
    ///
    /// Every other outcome is an `HTTPError`, including a non-2xx status (`.httpStatus`, which carries the body so
    /// callers can read an error document from it). Implementations must not block the caller's thread.
    func get(url: String) async throws(HTTPError) -> HTTPResponse
}
