import Foundation
import Synchronization
import Testing

@testable import InterPayContract
@testable import InterPayControl
@testable import InterPayControlClient

#if canImport(Glibc)
    import Glibc
#endif

/// The control socket's directory and owner: another local user can neither swap the socket nor pose as the daemon
/// (SECURITY.md, "Control socket").
@Suite("Control socket hygiene")
struct SocketHygieneTests {
    @Test(
        "an existing directory must belong to this user or root and not be writable by others (unless sticky)",
        arguments: [
            (UInt32(0), UInt32(0o40755), true), (UInt32(0), UInt32(0o41777), true), (UInt32(0), UInt32(0o40750), true),
            (UInt32(0), UInt32(0o40777), false), (UInt32(0), UInt32(0o40775), false),
            (UInt32(65534), UInt32(0o40700), false),
        ])
    func directoryRules(owner: UInt32, mode: UInt32, safe: Bool) {
        #expect((ControlSocketFile.unsafeDirectoryReason(owner: owner, mode: mode, me: 0) == nil) == safe)
    }

    @Test("the server refuses to put its socket in a directory others can write to")
    func refusesWorldWritableDirectory() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let run = directory.path + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        chmod(run, 0o777)
        let server = ControlServer(
            configuration: ControlServerConfiguration(path: directory.socketPath), handler: FakeHandler(),
            logger: .init(label: "test"))
        await #expect(throws: ControlServerError.self) { try await server.start() }
        #expect(mode(of: directory.socketPath) == nil)
    }

    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { (path: String) in
        access(path, X_OK) == 0
    }

    @Test(
        "the client sends nothing to a socket another user serves",
        .enabled(
            if: geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 && python != nil,
            "needs root, setpriv and python3"))
    func clientChecksServer() async throws {
        let python = try #require(Self.python)
        let directory = try TestDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o777)
        let path = directory.path + "/fake.sock"
        let received = directory.path + "/received"
        // A server run as nobody: accepts one connection and writes how many bytes it was sent.
        let script = """
            import socket, sys, os
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(1)
            c, _ = s.accept(); c.settimeout(3)
            data = b''
            try:
                while True:
                    chunk = c.recv(4096)
                    if not chunk: break
                    data += chunk
            except OSError:
                pass
            open(sys.argv[2], 'w').write(str(len(data)))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", script, path, received]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        try process.run()
        defer { process.terminate() }
        try await eventually("the fake server listens", timeout: .seconds(10)) {
            FileManager.default.fileExists(atPath: path)
        }
        let client = ControlClient(path: path, timeout: .seconds(5))
        do {
            _ = try await client.call("send", params: ["peer": "bob", "amount": "900", "currency": "EUR"])
            Issue.record("the client talked to a socket served by uid 65534")
        } catch {
            #expect("\(error)".contains("uid 65534"), "\(error)")
        }
        // The server creates the file before it writes the count: wait for the count itself.
        try await eventually("the fake server reports", timeout: .seconds(10)) {
            !((try? String(contentsOfFile: received, encoding: .utf8)) ?? "").isEmpty  // absent: not yet
        }
        #expect((try? String(contentsOfFile: received, encoding: .utf8)) == "0")
    }
}
