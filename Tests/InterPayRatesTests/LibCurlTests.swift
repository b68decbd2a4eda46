import CCurl
import Testing

@testable import InterPayRates

/// libcurl loaded at run time (`LibCurl`): the library is found, and the typed shims reach its variadic functions.
@Suite("libcurl loaded with dlopen")
struct LibCurlTests {
    @Test("curl_version_info reports a version and TLS support")
    func versionInfo() throws {
        let curl = try LibCurl.shared.get()
        let info = try #require(curl.versionInfo(CURLVERSION_TENTH))
        let version = String(cString: try #require(info.pointee.version))
        #expect(version.split(separator: ".").count >= 2, "unexpected libcurl version string \(version)")
        #expect(info.pointee.features & CURL_VERSION_SSL != 0, "libcurl was built without TLS support")
    }

    @Test("the typed setopt and getinfo shims are accepted by an easy handle")
    func setoptShims() throws {
        let curl = try LibCurl.shared.get()
        let handle = try #require(curl.easyInit())
        defer { curl.easyCleanup(handle) }
        #expect(interpay_curl_easy_setopt_string(curl.setopt, handle, CURLOPT_URL, "http://127.0.0.1:9/") == CURLE_OK)
        #expect(interpay_curl_easy_setopt_long(curl.setopt, handle, CURLOPT_MAXREDIRS, 3) == CURLE_OK)
        #expect(interpay_curl_easy_setopt_off_t(curl.setopt, handle, CURLOPT_MAXFILESIZE_LARGE, 1 << 20) == CURLE_OK)
        // An unknown option number is refused: the shim really forwards to curl_easy_setopt.
        #expect(interpay_curl_easy_setopt_long(curl.setopt, handle, CURLoption(rawValue: 99_999), 1) != CURLE_OK)
        var status = -1
        #expect(interpay_curl_easy_getinfo_long(curl.getinfo, handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK)
        #expect(status == 0, "no transfer has run, so there is no response code yet")
        #expect(curl.explanation(of: CURLE_COULDNT_CONNECT).contains("connect"))
    }
}
