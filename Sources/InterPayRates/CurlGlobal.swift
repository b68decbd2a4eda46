import CCurl

/// libcurl's process-wide initialization, done once before the first transfer.
///
/// `curl_global_init` is not thread-safe and must run once per process. A `static let` is initialized lazily and
/// exactly once even when several threads reach it together (the Swift runtime guards it with `swift_once`), so
/// every transfer reads `status` first.
enum CurlGlobal {
    /// The result of the one `curl_global_init` call.
    static let status: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
}
