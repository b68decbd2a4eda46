import Foundation
import Synchronization
import Testing

@testable import InterPayContract
@testable import InterPayControl

#if canImport(Glibc)
    import Glibc
#endif

/// Tools the cross-user tests need: root (to switch user), setpriv, and a python3 outside /root.
private let setpriv = "/usr/bin/setpriv"
private let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { (path: String) in access(path, X_OK) == 0 }
private let canSwitchUser = geteuid() == 0 && access(setpriv, X_OK) == 0 && python != nil

/// Connects, sends one request line, prints whatever single line comes back.
private let clientScript = """
    import socket, sys
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    try:
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{"who":"other"}}\\n')
    except OSError:
        pass
    data = b''
    while b'\\n' not in data:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    sys.stdout.write(data.decode())
    """

@Suite("SO_PEERCRED checks", .enabled(if: canSwitchUser, "needs root, setpriv and /usr/bin/python3"))
struct PeerCredentialTests {
    @Test("another uid is refused with -32004 and disconnected")
    func refusesOtherUser() async throws {
        let running = try await RunningServer.start {
            $0.permissions = ControlSocketPermissions(directoryMode: 0o755, socketMode: 0o666)
        }
        #expect(mode(of: running.path) == 0o666)
        let output = try await runAsOtherUser(uid: 65534, gid: 65534, socket: running.path)
        let response = try JSONValue(parsing: output)
        #expect(response["error"]?["code"] == -32004)
        #expect(response["error"]?["message"] == "permission denied: uid 65534 is not allowed")
        #expect(response["id"] == .null)
        // The server goes on serving its own user.
        let client = running.client
        #expect(try await bounded("call") { try await client.call("fast", params: nil) } == "fast")
        try await running.stop()
    }

    @Test("a member of the configured group is allowed; socket 0660 and directory 0750 with that group")
    func allowsConfiguredGroup() async throws {
        let groupID: UInt32 = 4242
        let running = try await RunningServer.start { $0.groupID = groupID }
        let directory = running.directory.path + "/run"
        #expect(mode(of: running.path) == 0o660)
        #expect(group(of: running.path) == groupID)
        #expect(mode(of: directory) == 0o750)
        #expect(group(of: directory) == groupID)
        let output = try await runAsOtherUser(uid: 65534, gid: groupID, socket: running.path)
        let response = try JSONValue(parsing: output)
        #expect(response["result"] == ["who": "other"])
        try await running.stop()
    }

    @Test("with a group configured, a peer of another gid is still refused")
    func refusesOtherGroup() async throws {
        // Open modes, so that only SO_PEERCRED stands between the peer and the handler.
        let running = try await RunningServer.start {
            $0.groupID = 4242
            $0.permissions = ControlSocketPermissions(directoryMode: 0o755, socketMode: 0o666)
        }
        let output = try await runAsOtherUser(uid: 65534, gid: 4243, socket: running.path)
        let response = try JSONValue(parsing: output)
        #expect(response["error"]?["code"] == -32004)
        #expect(response["error"]?["message"] == "permission denied: uid 65534 is not allowed")
        try await running.stop()
    }

    @Test("a supplementary member of the configured group is allowed (SO_PEERCRED reports only the primary group)")
    func allowsSupplementaryMember() async throws {
        let running = try await RunningServer.start { $0.groupID = 4242 }
        let output = try await runAsOtherUser(uid: 65534, gid: 4243, groups: [4241, 4242], socket: running.path)
        let response = try JSONValue(parsing: output)
        #expect(response["result"] == ["who": "other"])
        try await running.stop()
    }

    /// Runs the python client as `uid`/`gid` with the supplementary `groups` (none by default); returns its output
    /// (bounded).
    private func runAsOtherUser(
        uid: UInt32, gid: UInt32, groups: [UInt32] = [], socket: String
    ) async throws
        -> String
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setpriv)
        let groupArgument =
            groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        process.arguments = [
            "--reuid=\(uid)", "--regid=\(gid)", groupArgument, python ?? "python3", "-c", clientScript, socket,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        let exited = Mutex(false)
        process.terminationHandler = { _ in exited.withLock { $0 = true } }
        try process.run()
        do {
            try await eventually("the client as uid \(uid) exits", timeout: .seconds(15)) {
                exited.withLock { $0 }
            }
        } catch {
            process.terminate()
            throw error
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }
}
