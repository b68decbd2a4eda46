import Foundation
import InterPayCore
import InterPayTestSupport
import NIOPosix
import Testing

@testable import InterPayTransport

/// PROTOCOL.md §3.3: a TLS session is never resumed; every connection proves its key with a full handshake.
///
/// The Swift TLS client never offers a session, so the client here is Python's `ssl` module, which keeps the
/// session (and its TLS 1.3 ticket) of a first connection and offers it on a second.
@Suite("No TLS session resumption", .tearsDown, .serialized)
struct ResumptionTests {
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static let script = """
        import socket, ssl, sys
        port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.load_cert_chain(cert, key)
        def connect(session=None):
            raw = socket.create_connection(("127.0.0.1", port), timeout=5)
            tls = context.wrap_socket(raw, session=session)
            tls.recv(4)  # the server's hello: by then the session ticket has arrived as well
            return tls
        first = connect()
        session = first.session
        first.close()
        second = connect(session)
        print("offered=%s reused=%s" % (session is not None and session.has_ticket, second.session_reused))
        second.close()
        """

    @Test("a second connection offering the first one's session gets a full handshake")
    func resumptionRefused() async throws {
        let python = try #require(Self.python, "python3 is needed for this test")
        let server = try await TestPeer(name: "Server")
        let client = try TemporaryDirectory()
        _ = try Identity.loadOrCreate(in: client.url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c", Self.script, "\(server.port)", client.url.appending(path: Identity.certificateFileName).path,
            client.url.appending(path: Identity.keyFileName).path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Reading to the end of the pipe and waiting for the exit block: on NIO's thread pool, made for blocking
        // work (a detached task would block a thread of the cooperative pool, which every other test shares).
        let text = try await NIOThreadPool.singleton.runIfActive {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        #expect(process.terminationStatus == 0)
        #expect(text.contains("offered=True"), "the server issued a ticket the client could offer: \(text)")
        #expect(text.contains("reused=False"), "\(text)")
        client.remove()
        await server.stop()
    }
}
