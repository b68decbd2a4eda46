import Foundation
import InterPayWeb
import Testing

@Suite("Web listen address and token")
struct WebConfigurationTests {
    @Test("loopback addresses are accepted; localhost is 127.0.0.1")
    func loopback() throws {
        #expect(try WebListenAddress(parsing: "127.0.0.1:7780") == .default)
        #expect(try WebListenAddress(parsing: "localhost:0").host == "127.0.0.1")
        #expect(try WebListenAddress(parsing: "127.1.2.3:8080").port == 8080)
        #expect(try WebListenAddress(parsing: "[::1]:7780").host == "::1")
        #expect(try WebListenAddress(parsing: "[::1]:7780").description == "[::1]:7780")
    }

    @Test("anything else is refused, naming why")
    func refused() {
        for (text, error) in [
            ("0.0.0.0:7780", WebListenAddressError.notLoopback("0.0.0.0")),
            ("198.18.0.5:7780", .notLoopback("198.18.0.5")), ("[::]:7780", .notLoopback("::")),
            ("example.com:7780", .notLoopback("example.com")),
            ("127.0.0.1.nip.io:80", .notLoopback("127.0.0.1.nip.io")),
            ("127.0.0.256:80", .notLoopback("127.0.0.256")), ("127.0.0.1", .malformed("127.0.0.1")),
            ("127.0.0.1:99999", .badPort("127.0.0.1:99999")), ("::1:7780", .malformed("::1:7780")),
        ] {
            #expect(throws: error, "\(text)") { try WebListenAddress(parsing: text) }
        }
        #expect("\(WebListenAddressError.notLoopback("0.0.0.0"))".contains("not a loopback address"))
    }

    @Test("the token file is created 0600, kept across restarts, and narrowed to 0600 if widened")
    func tokenFile() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "web-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // best-effort clean-up of a temporary directory
        let token = try WebToken.loadOrCreate(in: directory)
        #expect(WebToken.isWellFormed(token))
        let path = directory.appending(path: WebToken.fileName).path
        func mode() throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode() == 0o600)
        #expect(try WebToken.loadOrCreate(in: directory) == token)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(try WebToken.loadOrCreate(in: directory) == token)
        #expect(try mode() == 0o600)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path))
        let replaced = try WebToken.loadOrCreate(in: directory)
        #expect(replaced != token && WebToken.isWellFormed(replaced))
        #expect(try mode() == 0o600)
    }

    @Test("tokens are compared whole")
    func matching() {
        let token = WebToken.generate()
        #expect(WebToken.matches(token, token))
        #expect(!WebToken.matches(String(token.dropLast()), token))
        #expect(!WebToken.matches("", token))
        #expect(WebToken.generate() != token)
    }
}
