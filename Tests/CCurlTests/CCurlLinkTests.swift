import CCurl
import Testing

/// Proves the `CCurl` system-library target links against libcurl and that the setopt shims reach it.
@Suite("CCurl links and answers")
struct CCurlLinkTests {
    @Test("curl_version_info reports a version and TLS support")
    func versionInfo() throws {
        let info = try #require(curl_version_info(CURLVERSION_TENTH))
        let version = String(cString: try #require(info.pointee.version))
        #expect(version.split(separator: ".").count >= 2, "unexpected libcurl version string \(version)")
        #expect(info.pointee.features & CURL_VERSION_SSL != 0, "libcurl was built without TLS support")
    }

    @Test("the typed setopt shims are accepted by an easy handle")
    func setoptShims() throws {
        let handle = try #require(curl_easy_init())
        defer { curl_easy_cleanup(handle) }
        #expect(interpay_curl_easy_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:9/") == CURLE_OK)
        #expect(interpay_curl_easy_setopt_long(handle, CURLOPT_MAXREDIRS, 3) == CURLE_OK)
        #expect(interpay_curl_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, 1 << 20) == CURLE_OK)
        // An unknown option number is refused: the shim really forwards to curl_easy_setopt.
        #expect(interpay_curl_easy_setopt_long(handle, CURLoption(rawValue: 99_999), 1) != CURLE_OK)
    }
}
