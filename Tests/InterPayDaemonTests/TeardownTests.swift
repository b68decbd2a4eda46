import Foundation
import Glibc
import InterPayTestSupport
import Synchronization
import Testing

@testable import InterPayDaemon

@Suite("What a test starts is undone when it ends, also when it throws first", .tearsDown)
struct TeardownTests {
    struct Thrown: Error {}

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    @Test("a node and a directory made by a test that throws before stopping them are stopped and removed")
    func afterAThrow() async throws {
        let started = Mutex<(directory: URL, port: Int)?>(nil)
        let test = try #require(Test.current)
        await #expect(throws: Thrown.self) {
            try await TearsDownWhatItStarts().provideScope(for: test, testCase: nil) {
                let directory = try TemporaryDirectory()
                let node = try await Node.testing(name: "left")
                started.withLock { $0 = (directory.url, node.port) }
                #expect(Self.accepts(port: node.port), "the node listens while the test runs")
                throw Thrown()
            }
        }
        let (directory, port) = try #require(started.withLock { $0 })
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(!Self.accepts(port: port), "the node's listener is closed")
    }

    @Test("a test that ends normally has its directory removed too, and stopping twice is harmless")
    func afterAReturn() async throws {
        let started = Mutex<URL?>(nil)
        let test = try #require(Test.current)
        try await TearsDownWhatItStarts().provideScope(for: test, testCase: nil) {
            let directory = try TemporaryDirectory()
            let node = try await Node.testing(name: "stopped")
            started.withLock { $0 = directory.url }
            await node.stop()
        }
        let directory = try #require(started.withLock { $0 })
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}
