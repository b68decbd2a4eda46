import Foundation
import NIOCore
import Testing

@testable import InterPayRates

@Suite("libcurl HTTP client against a loopback server")
struct CurlHTTPClientTests {
    @Test("a 200 answer returns its body and the request carries the User-Agent")
    func success() async throws {
        try await withFixtureServer(["/ok": .body(status: 200, #"{"hello":"world"}"#)]) { server in
            let response = try await RatesFixtures.client().get(url: server.url("/ok"))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"hello":"world"}"#)
            #expect(server.lastUserAgent == "interpay/1.2.3-test")
            #expect(server.requestCount("/ok") == 1)
        }
    }

    @Test("a non-2xx status is an error that keeps the status code and the body")
    func httpStatus() async throws {
        try await withFixtureServer(["/fail": .body(status: 500, "boom")]) { server in
            let url = server.url("/fail")
            let error = await #expect(throws: HTTPError.self) { try await RatesFixtures.client().get(url: url) }
            #expect(error == .httpStatus(url: url, status: 500, body: Array("boom".utf8)))
            #expect(error?.description == "\(url) answered with HTTP status 500")
        }
    }

    @Test("a response slower than the timeout is a timeout error")
    func timeout() async throws {
        try await withFixtureServer(["/slow": .delayed(.seconds(60), "{}")]) { server in
            let error = await #expect(throws: HTTPError.self) {
                try await RatesFixtures.client(timeout: .milliseconds(300)).get(url: server.url("/slow"))
            }
            guard case .timedOut(let url, _) = error else {
                Issue.record("expected a timeout, got \(String(describing: error))")
                return
            }
            #expect(url == server.url("/slow"))
            #expect(error?.description.contains("did not answer in time") == true)
        }
    }

    @Test("a body over the limit is abandoned as too large, announced or not")
    func tooLarge() async throws {
        try await withFixtureServer([
            "/announced": .large(count: 2 << 20),
            "/chunked": .chunked(chunks: 64, chunkSize: 32 * 1024),
            "/fits": .large(count: 1_000),
        ]) { server in
            let client = RatesFixtures.client(maximumResponseBytes: 64 * 1024)
            for path in ["/announced", "/chunked"] {
                let url = server.url(path)
                await #expect(throws: HTTPError.tooLarge(url: url, limit: 64 * 1024)) { try await client.get(url: url) }
            }
            let fits = try await client.get(url: server.url("/fits"))
            #expect(fits.body.count == 1_000)
        }
    }

    @Test("up to three redirects are followed, a fourth is an error")
    func redirects() async throws {
        try await withFixtureServer([
            "/r1": .redirect(to: "/r2"), "/r2": .redirect(to: "/r3"), "/r3": .redirect(to: "/ok"),
            "/ok": .body(status: 200, "done"),
            "/loop": .redirect(to: "/loop"),
        ]) { server in
            let client = RatesFixtures.client()
            let redirected = try await client.get(url: server.url("/r1"))
            #expect(redirected.body == Array("done".utf8))
            let url = server.url("/loop")
            await #expect(throws: HTTPError.tooManyRedirects(url: url, limit: 3)) { try await client.get(url: url) }
            #expect(server.requestCount("/loop") == 4)
        }
    }

    @Test("a closed port is a connection error")
    func connectionRefused() async throws {
        let server = try await FixtureServer.start([:])
        let url = server.url("/gone")
        try await server.stop()

        let error = await #expect(throws: HTTPError.self) { try await RatesFixtures.client().get(url: url) }
        guard case .connectFailed = error else {
            Issue.record("expected a connection error, got \(String(describing: error))")
            return
        }
    }

    @Test("URLs that are not http or https are refused before any traffic")
    func invalidURL() async {
        for url in ["ftp://127.0.0.1/rates", "file:///etc/passwd", "not a url"] {
            let error = await #expect(throws: HTTPError.self) { try await RatesFixtures.client().get(url: url) }
            guard case .invalidURL = error else {
                Issue.record("expected invalidURL for \(url), got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("cancelling the waiting task abandons the transfer")
    func cancellation() async throws {
        try await withFixtureServer(["/slow": .delayed(.seconds(60), "{}")]) { server in
            let url = server.url("/slow")
            let task = Task { try await RatesFixtures.client(timeout: .seconds(60)).get(url: url) }
            // Cancel once the request has reached the server, so the transfer is really under way.
            var polls = 0
            while server.requestCount("/slow") == 0, polls < 1_000 {
                try await Task.sleep(for: .milliseconds(10))
                polls += 1
            }
            task.cancel()
            let result = await task.result
            #expect(throws: HTTPError.cancelled(url: url)) { try result.get() }
        }
    }

    @Test("https to a plain-HTTP server is a TLS error")
    func tlsFailure() async throws {
        try await withFixtureServer(["/ok": .body(status: 200, "{}")]) { server in
            let url = "https://127.0.0.1:\(server.port)/ok"
            let error = await #expect(throws: HTTPError.self) { try await RatesFixtures.client().get(url: url) }
            guard case .tls(let reported, _) = error else {
                Issue.record("expected a TLS error, got \(String(describing: error))")
                return
            }
            #expect(reported == url)
        }
    }

    @Test(
        "libcurl codes map to the error kinds: DNS, connect, timeout, TLS, redirects, other",
        arguments: [
            (5, "dns"), (6, "dns"), (7, "connect"), (28, "timeout"), (35, "tls"), (58, "tls"), (60, "tls"),
            (77, "tls"), (47, "redirects"), (1, "url"), (3, "url"), (56, "other"), (52, "other"),
        ] as [(UInt32, String)])
    func classification(code: UInt32, kind: String) {
        let error = CurlHTTPClient.error(forCode: code, url: "https://h/", detail: "d")
        let actual =
            switch error {
            case .dnsFailure: "dns"
            case .connectFailed: "connect"
            case .timedOut: "timeout"
            case .tls: "tls"
            case .tooManyRedirects: "redirects"
            case .invalidURL: "url"
            case .other(_, let reported, _) where reported == Int(code): "other"
            default: "unexpected \(error)"
            }
        #expect(actual == kind)
    }

    @Test("every error kind explains itself and masks secrets on request")
    func descriptionsAndRedaction() {
        let url = "https://rates.example/v6/SECRETKEY123/latest/USD"
        let errors: [HTTPError] = [
            .invalidURL(url: url, detail: "bad"), .dnsFailure(url: url, detail: "Could not resolve host"),
            .connectFailed(url: url, detail: "refused"), .timedOut(url: url, detail: "after 300 ms"),
            .tls(url: url, detail: "certificate SECRETKEY123"), .httpStatus(url: url, status: 503, body: []),
            .tooLarge(url: url, limit: 10), .tooManyRedirects(url: url, limit: 3), .cancelled(url: url),
            .other(url: url, code: 2, detail: "SECRETKEY123"),
        ]
        for error in errors {
            let masked = error.redacting { $0.replacingOccurrences(of: "SECRETKEY123", with: "****") }
            #expect(!masked.description.contains("SECRETKEY123"))
            #expect(masked.description.contains("https://rates.example/v6/****/latest/USD"))
            #expect(masked.url == "https://rates.example/v6/****/latest/USD")
        }
        #expect(
            HTTPError.dnsFailure(url: url, detail: "x").description.contains("cannot resolve the host"))
        #expect(HTTPError.tls(url: url, detail: "x").description.contains("secure connection"))
    }
}
