import CCurl
import Glibc

/// libcurl's entry points, loaded with `dlopen` at the first transfer rather than linked.
///
/// Linked, libcurl and the two dozen libraries it needs (OpenSSL, GnuTLS, Kerberos, LDAP, libssh2, …) would be loaded
/// and relocated into every daemon at start-up: about 5 MiB of resident memory in a process that may never convert
/// an amount (docs/performance.md). Loaded here, they cost nothing until the converter is first asked. The
/// handle is never closed, so the pointers stay valid for the life of the process.
struct LibCurl: @unchecked Sendable {
    // @unchecked: immutable C function pointers and two raw symbol addresses into a library that is never unloaded;
    // libcurl's easy interface is safe to call from any thread with a handle of one's own.

    /// The soname of Debian's libcurl4 (the OpenSSL flavour, whose headers the build uses).
    static let soname = "libcurl.so.4"

    let easyInit: @convention(c) () -> UnsafeMutableRawPointer?
    let easyCleanup: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let easyPerform: @convention(c) (UnsafeMutableRawPointer?) -> CURLcode
    let easyStrerror: @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    let slistAppend:
        @convention(c) (UnsafeMutablePointer<curl_slist>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<curl_slist>?
    let slistFreeAll: @convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void
    let versionInfo: @convention(c) (CURLversion) -> UnsafeMutablePointer<curl_version_info_data>?
    /// `curl_easy_setopt`, variadic: called through the typed `interpay_curl_easy_setopt_*` shims.
    let setopt: UnsafeMutableRawPointer
    /// `curl_easy_getinfo`, variadic: called through `interpay_curl_easy_getinfo_long`.
    let getinfo: UnsafeMutableRawPointer

    /// The library, loaded and globally initialized once (`curl_global_init` must run once per process, before any
    /// other call; a `static let` is initialized exactly once even when threads race to it), or why it could not be.
    static let shared: Result<LibCurl, LoadFailure> = load()

    /// Why libcurl is not usable, in the loader's or libcurl's words.
    struct LoadFailure: Error, CustomStringConvertible {
        let description: String
    }

    private static func load() -> Result<LibCurl, LoadFailure> {
        guard let library = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(LoadFailure(description: "libcurl could not be loaded (\(lastError())); install libcurl4"))
        }
        func address(_ name: String) throws(LoadFailure) -> UnsafeMutableRawPointer {
            guard let address = dlsym(library, name) else {
                throw LoadFailure(description: "\(soname) has no \(name) (\(lastError()))")
            }
            return address
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(LoadFailure) -> T {
            unsafeBitCast(try address(name), to: type)
        }
        do throws(LoadFailure) {
            typealias GlobalInit = @convention(c) (Int) -> CURLcode
            let globalInit = try symbol("curl_global_init", as: GlobalInit.self)
            let curl = LibCurl(
                easyInit: try symbol("curl_easy_init", as: (@convention(c) () -> UnsafeMutableRawPointer?).self),
                easyCleanup: try symbol(
                    "curl_easy_cleanup", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self),
                easyPerform: try symbol(
                    "curl_easy_perform", as: (@convention(c) (UnsafeMutableRawPointer?) -> CURLcode).self),
                easyStrerror: try symbol(
                    "curl_easy_strerror", as: (@convention(c) (CURLcode) -> UnsafePointer<CChar>?).self),
                slistAppend: try symbol(
                    "curl_slist_append",
                    as: (@convention(c) (UnsafeMutablePointer<curl_slist>?, UnsafePointer<CChar>?) ->
                        UnsafeMutablePointer<curl_slist>?).self),
                slistFreeAll: try symbol(
                    "curl_slist_free_all", as: (@convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void).self),
                versionInfo: try symbol(
                    "curl_version_info",
                    as: (@convention(c) (CURLversion) -> UnsafeMutablePointer<curl_version_info_data>?).self),
                setopt: try address("curl_easy_setopt"),
                getinfo: try address("curl_easy_getinfo"))
            let status = globalInit(Int(CURL_GLOBAL_DEFAULT))
            guard status == CURLE_OK else {
                return .failure(LoadFailure(description: "libcurl could not be initialized (code \(status.rawValue))"))
            }
            return .success(curl)
        } catch {
            return .failure(error)
        }
    }

    /// libcurl's one-line explanation of a result code.
    func explanation(of code: CURLcode) -> String {
        easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    /// `dlerror()`'s text, or a placeholder when it has none.
    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "no detail"
    }
}
