import CCurl
import Foundation
import NIOPosix

/// An `HTTPClient` backed by libcurl.
///
/// Each request runs the blocking `curl_easy_perform` on NIO's shared thread pool (libcurl itself is loaded at the
/// first one, `LibCurl`) and resumes the waiting task when it is done, so no Swift-concurrency thread or event loop
/// ever blocks. Requests verify TLS certificates and host names, follow at most `maximumRedirects` redirects (http
/// and https only), send `User-Agent: interpay/<version>`, give up after `connectTimeout` / `timeout`, and abort as
/// soon as the body exceeds `maximumResponseBytes`. Proxies configured with the usual environment variables
/// (`https_proxy`, `no_proxy`…) are honoured. Cancelling the waiting task aborts the transfer.
public struct CurlHTTPClient: HTTPClient {
    /// How many redirects are followed before `HTTPError.tooManyRedirects`.
    public static let maximumRedirects = 3

    /// The version sent in `User-Agent: interpay/<version>`.
    public let version: String
    /// The longest wait for a connection (including DNS and the TLS handshake).
    public let connectTimeout: Duration
    /// The longest a whole request may take.
    public let timeout: Duration
    /// The largest body accepted, in bytes (after content decoding).
    public let maximumResponseBytes: Int
    /// Hosts reached without a proxy, overriding the `no_proxy` environment variable (libcurl's `NOPROXY`
    /// syntax, e.g. `"127.0.0.1,localhost"`); nil leaves the environment in charge.
    public let noProxy: String?

    /// A client identifying itself as `interpay/<version>`.
    ///
    /// - Parameters:
    ///   - version: InterPay's version, for the `User-Agent` header.
    ///   - connectTimeout: The longest wait for a connection; at least one millisecond is used.
    ///   - timeout: The longest a whole request may take; at least one millisecond is used.
    ///   - maximumResponseBytes: The largest body accepted (1 MiB by default; rates documents are a few KiB).
    ///   - noProxy: Hosts to reach without a proxy, overriding `no_proxy`; nil to follow the environment.
    public init(
        version: String, connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(30),
        maximumResponseBytes: Int = 1 << 20, noProxy: String? = nil
    ) {
        self.version = version
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maximumResponseBytes = max(0, maximumResponseBytes)
        self.noProxy = noProxy
    }

    /// Fetches `url` on NIO's shared thread pool (libcurl's easy interface blocks); see `HTTPClient.get(url:)`.
    public func get(url: String) async throws(HTTPError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled(url: url) }
        let cancellation = TransferCancellation()
        let result: Result<HTTPResponse, HTTPError>
        do {
            result = try await withTaskCancellationHandler {
                try await NIOThreadPool.singleton.runIfActive {
                    perform(url: url, cancellation: cancellation)
                }
            } onCancel: {
                cancellation.cancel()
            }
        } catch {
            // The shared pool is never shut down: only a task cancelled before its turn ends here.
            throw .cancelled(url: url)
        }
        return try result.get()
    }

    // MARK: The transfer (on a thread of the pool)

    /// Runs one blocking transfer, on a thread of the pool.
    private func perform(url: String, cancellation: TransferCancellation) -> Result<HTTPResponse, HTTPError> {
        let curl: LibCurl
        switch LibCurl.shared {
        case .success(let loaded): curl = loaded
        case .failure(let failure): return .failure(.other(url: url, code: -1, detail: failure.description))
        }
        guard let handle = curl.easyInit() else {
            return .failure(.other(url: url, code: -1, detail: "libcurl could not create a transfer"))
        }
        defer { curl.easyCleanup(handle) }

        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        let headers = curl.slistAppend(nil, "Accept: application/json")
        defer { curl.slistFreeAll(headers) }

        let transfer = CurlTransfer(limit: maximumResponseBytes, cancellation: cancellation)
        return withExtendedLifetime(transfer) {
            let context = Unmanaged.passUnretained(transfer).toOpaque()
            if let failure = configure(
                curl, handle, url: url, headers: headers, errorBuffer: errorBuffer, context: context)
            {
                return .failure(.other(url: url, code: Int(failure.code.rawValue), detail: failure.detail))
            }

            let code = curl.easyPerform(handle)
            if transfer.exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
                return .failure(.tooLarge(url: url, limit: maximumResponseBytes))
            }
            if cancellation.isCancelled {
                return .failure(.cancelled(url: url))
            }
            guard code == CURLE_OK else {
                let detail =
                    errorBuffer.pointee != 0
                    ? String(cString: errorBuffer) : curl.explanation(of: code)
                return .failure(Self.error(forCode: code.rawValue, url: url, detail: detail))
            }

            var status = 0
            guard interpay_curl_easy_getinfo_long(curl.getinfo, handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK
            else {
                return .failure(.other(url: url, code: -1, detail: "libcurl did not report the HTTP status"))
            }
            guard (200...299).contains(status) else {
                return .failure(.httpStatus(url: url, status: status, body: transfer.body))
            }
            return .success(HTTPResponse(status: status, body: transfer.body))
        }
    }

    /// The schemes a redirect from `url` may lead to: only `https` from an `https` URL, so that no redirect can
    /// downgrade a transfer (and the key in its URL) to plain HTTP.
    static func redirectProtocols(for url: String) -> String {
        url.lowercased().hasPrefix("https://") ? "https" : "http,https"
    }

    /// Sets every option of the transfer; the first option libcurl refuses, if any.
    private func configure(
        _ curl: LibCurl, _ handle: UnsafeMutableRawPointer, url: String, headers: UnsafeMutablePointer<curl_slist>?,
        errorBuffer: UnsafeMutablePointer<CChar>, context: UnsafeMutableRawPointer
    ) -> (code: CURLcode, detail: String)? {
        var results: [(CURLoption, CURLcode)] = []
        func set(_ option: CURLoption, _ value: Int) {
            results.append((option, interpay_curl_easy_setopt_long(curl.setopt, handle, option, value)))
        }
        func set(_ option: CURLoption, _ value: String) {
            // libcurl copies string options, so a temporary C string is enough.
            results.append((option, interpay_curl_easy_setopt_string(curl.setopt, handle, option, value)))
        }

        results.append(
            (
                CURLOPT_ERRORBUFFER,
                interpay_curl_easy_setopt_pointer(curl.setopt, handle, CURLOPT_ERRORBUFFER, errorBuffer)
            ))
        set(CURLOPT_URL, url)
        set(CURLOPT_HTTPGET, 1)
        // Signals cannot be used for timeouts in a multi-threaded process.
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_REDIR_PROTOCOLS_STR, Self.redirectProtocols(for: url))
        set(CURLOPT_FOLLOWLOCATION, 1)
        set(CURLOPT_MAXREDIRS, Self.maximumRedirects)
        set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout))
        set(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_USERAGENT, "interpay/\(version)")
        // Any encoding libcurl can decode; the size limit applies to the decoded body.
        set(CURLOPT_ACCEPT_ENCODING, "")
        if let noProxy { set(CURLOPT_NOPROXY, noProxy) }
        results.append(
            (CURLOPT_HTTPHEADER, interpay_curl_easy_setopt_slist(curl.setopt, handle, CURLOPT_HTTPHEADER, headers)))
        // Refuses at once a body whose announced length is over the limit; the write callback catches the rest.
        results.append(
            (
                CURLOPT_MAXFILESIZE_LARGE,
                interpay_curl_easy_setopt_off_t(
                    curl.setopt, handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumResponseBytes))
            ))

        results.append(
            (
                CURLOPT_WRITEFUNCTION,
                interpay_curl_easy_setopt_write_function(curl.setopt, handle, CURLOPT_WRITEFUNCTION) {
                    data, size, count, context in
                    guard let context else { return 0 }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    let (length, overflow) = size.multipliedReportingOverflow(by: count)
                    guard !overflow else { return 0 }
                    guard length > 0, let data else { return length }
                    // Returning anything but `length` makes libcurl abort with CURLE_WRITE_ERROR.
                    return transfer.append(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
                }
            ))
        results.append(
            (CURLOPT_WRITEDATA, interpay_curl_easy_setopt_pointer(curl.setopt, handle, CURLOPT_WRITEDATA, context)))
        set(CURLOPT_NOPROGRESS, 0)
        results.append(
            (
                CURLOPT_XFERINFOFUNCTION,
                interpay_curl_easy_setopt_xferinfo_function(curl.setopt, handle, CURLOPT_XFERINFOFUNCTION) {
                    context, _, _, _, _ in
                    guard let context else { return 0 }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    // Non-zero aborts the transfer with CURLE_ABORTED_BY_CALLBACK.
                    return transfer.cancellation.isCancelled ? 1 : 0
                }
            ))
        results.append(
            (
                CURLOPT_XFERINFODATA,
                interpay_curl_easy_setopt_pointer(curl.setopt, handle, CURLOPT_XFERINFODATA, context)
            ))

        guard let refused = results.first(where: { $0.1 != CURLE_OK }) else { return nil }
        let reason = curl.explanation(of: refused.1)
        return (refused.1, "libcurl refused option \(refused.0.rawValue): \(reason)")
    }

    // MARK: Helpers

    /// Classifies a libcurl failure by its `CURLcode` number.
    static func error(forCode rawCode: UInt32, url: String, detail: String) -> HTTPError {
        return switch CURLcode(rawValue: rawCode) {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            .invalidURL(url: url, detail: detail)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            .dnsFailure(url: url, detail: detail)
        case CURLE_COULDNT_CONNECT:
            .connectFailed(url: url, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            .timedOut(url: url, detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            .tls(url: url, detail: detail)
        case CURLE_TOO_MANY_REDIRECTS:
            .tooManyRedirects(url: url, limit: maximumRedirects)
        default:
            .other(url: url, code: Int(rawCode), detail: detail)
        }
    }

    /// A duration in whole milliseconds for libcurl: at least 1 (0 would mean "no timeout"), at most `Int.max`.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 1 }
        let (wholeSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        guard !overflow else { return Int.max }
        let (total, overflow2) = wholeSeconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        guard !overflow2 else { return Int.max }
        return Int(clamping: max(total, 1))
    }
}
