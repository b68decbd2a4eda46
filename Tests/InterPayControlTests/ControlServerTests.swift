import Foundation
import Testing

@testable import InterPayContract
@testable import InterPayControl
@testable import InterPayControlClient

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Control server and client")
struct ControlServerTests {
    @Test("a call round-trips nested params and results, big integers exactly")
    func roundTrip() async throws {
        let running = try await RunningServer.start()
        let params: JSONValue = [
            "amount": ["minor": .int(1 << 62), "currency": "MXN"],
            "list": [.int(-(1 << 62)), .int(Int64.max), 0.5, "é😀\n\"", true, .null, [[:]]],
        ]
        let client = running.client
        let result = try await bounded("echo") { try await client.call("echo", params: params) }
        #expect(result == params)
        #expect(result["amount"]?["minor"]?.intValue == 4_611_686_018_427_387_904)

        let raw = try await RawConnection.connect(path: running.path)
        try await raw.send(#"{"jsonrpc":"2.0","id":"x","method":"echo","params":[4611686018427387904]}"# + "\n")
        let line = try await raw.readLine()
        #expect(line == #"{"id":"x","jsonrpc":"2.0","result":[4611686018427387904]}"#)
        raw.close()
        try await running.stop()
    }

    @Test("malformed JSON gets -32700 with a null id, and the connection keeps serving")
    func parseError() async throws {
        let running = try await RunningServer.start()
        let raw = try await RawConnection.connect(path: running.path)
        try await raw.send("{not json\n")
        let response = try await raw.readJSON()
        #expect(errorCode(response) == -32700)
        #expect(response["id"] == .null)
        #expect(response["jsonrpc"] == "2.0")
        try await raw.send(#"{"jsonrpc":"2.0","id":2,"method":"fast"}"# + "\n")
        #expect(try await raw.readJSON()["result"] == "fast")
        raw.close()
        try await running.stop()
    }

    @Test("valid JSON that is not a request gets -32600, with the id when it can be read")
    func invalidRequest() async throws {
        let running = try await RunningServer.start()
        let raw = try await RawConnection.connect(path: running.path)
        let cases: [(String, JSONValue)] = [
            (#"{"jsonrpc":"2.0","id":7}"#, 7),
            (#"{"jsonrpc":"1.0","id":"a","method":"fast"}"#, "a"),
            (#"[1,2]"#, .null),
            (#""hello""#, .null),
            (#"{"jsonrpc":"2.0","id":1.5,"method":"fast"}"#, .null),
            (#"{"jsonrpc":"2.0","id":8,"method":"fast","params":3}"#, 8),
        ]
        for (line, id) in cases {
            try await raw.send(line + "\n")
            let response = try await raw.readJSON()
            #expect(errorCode(response) == -32600, "\(line)")
            #expect(response["id"] == id, "\(line)")
        }
        raw.close()
        try await running.stop()
    }

    @Test("an unknown method gets -32601")
    func unknownMethod() async throws {
        let running = try await RunningServer.start()
        let client = running.client
        await #expect {
            try await bounded("call") { try await client.call("frobnicate", params: nil) }
        } throws: { error in
            guard case .rpc(let rpc) = error as? ControlClientError else { return false }
            return rpc.code == .methodNotFound && rpc.message.contains("frobnicate")
        }
        try await running.stop()
    }

    @Test(
        "handler errors pass through with code, message and data",
        arguments: [-32001, -32002, -32003, -32004, -32005, -32602, -32603])
    func handlerErrors(code: Int64) async throws {
        let running = try await RunningServer.start()
        let client = running.client
        let params: JSONValue = ["code": .int(code), "message": .string("nope \(code)"), "data": ["why": [1, 2]]]
        await #expect {
            try await bounded("call") { try await client.call("fail", params: params) }
        } throws: { error in
            guard case .rpc(let rpc) = error as? ControlClientError else { return false }
            return rpc == RPCError(code: .init(rawValue: code), message: "nope \(code)", data: ["why": [1, 2]])
        }
        try await running.stop()
    }

    @Test("two requests in one write are answered in order; notifications get no answer")
    func pipelined() async throws {
        let running = try await RunningServer.start()
        let raw = try await RawConnection.connect(path: running.path)
        try await raw.send(
            #"{"jsonrpc":"2.0","id":1,"method":"slow"}"# + "\n" + #"{"jsonrpc":"2.0","method":"fast"}"# + "\r\n"
                + #"{"jsonrpc":"2.0","id":2,"method":"fast"}"# + "\n\n")
        let first = try await raw.readJSON()
        let second = try await raw.readJSON()
        #expect(first["id"] == 1)
        #expect(first["result"] == "slow")
        #expect(second["id"] == 2)
        #expect(second["result"] == "fast")
        raw.close()
        try await running.stop()
    }

    @Test("a request sent before half-closing is still answered")
    func halfClose() async throws {
        let running = try await RunningServer.start()
        let raw = try await RawConnection.connect(path: running.path)
        // No trailing newline: the last line ends with the input.
        try await raw.send(#"{"jsonrpc":"2.0","id":3,"method":"echo","params":[1]}"#)
        raw.connection.shutdownWrite()
        let response = try await raw.readJSON()
        #expect(response["result"] == [1])
        #expect(await raw.isClosedByPeer())
        raw.close()
        try await running.stop()
    }

    @Test("an over-long line gets -32600 and the connection is closed; others are still served")
    func overlongLine() async throws {
        let running = try await RunningServer.start { $0.maxLineLength = 1_024 }
        let raw = try await RawConnection.connect(path: running.path)
        try await raw.send(String(repeating: "a", count: 4_096) + "\n")
        let response = try await raw.readJSON()
        #expect(errorCode(response) == -32600)
        #expect(response["error"]?["message"]?.stringValue?.contains("1024") == true)
        #expect(await raw.isClosedByPeer())
        raw.close()

        // Without a newline at all: the bound holds before the line ends.
        let endless = try await RawConnection.connect(path: running.path)
        try await endless.send(String(repeating: "b", count: 2_048))
        #expect(errorCode(try await endless.readJSON()) == -32600)
        #expect(await endless.isClosedByPeer())
        endless.close()

        // A line of exactly the limit is fine.
        let exact = try await RawConnection.connect(path: running.path)
        let request = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":[""#
        let padding = String(repeating: "x", count: 1_024 - request.utf8.count - 3)
        try await exact.send(request + padding + "\"]}\n")
        #expect(try await exact.readJSON()["result"]?[0]?.stringValue == padding)
        exact.close()

        let client = running.client
        #expect(try await bounded("call") { try await client.call("fast", params: nil) } == "fast")
        try await running.stop()
    }

    @Test("a stale socket file is replaced")
    func staleSocket() async throws {
        let directory = try TestDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/run", withIntermediateDirectories: true)
        try makeStaleSocket(at: directory.socketPath)
        #expect(fileExists(directory.socketPath))

        let client = ControlClient(path: directory.socketPath, timeout: .seconds(5))
        await #expect {
            try await bounded("call") { try await client.call("fast", params: nil) }
        } throws: { error in
            guard case .daemonUnreachable(let path, let reason) = error as? ControlClientError else { return false }
            return path == directory.socketPath && reason.contains("refused")
        }

        let running = try await RunningServer.start(in: directory)
        #expect(try await bounded("call") { try await client.call("fast", params: nil) } == "fast")
        try await running.stop()
    }

    @Test("a live socket means another daemon is running")
    func liveSocket() async throws {
        let running = try await RunningServer.start()
        let second = ControlServer(
            configuration: .init(path: running.path), handler: FakeHandler(), logger: .init(label: "test.second"))
        await #expect {
            try await bounded("second start") { try await second.start() }
        } throws: { error in
            guard let error = error as? ControlServerError, error == .alreadyRunning(path: running.path) else {
                return false
            }
            return error.description == "another interpayd is running (socket \(running.path))"
        }
        // The first one is untouched.
        let client = running.client
        #expect(try await bounded("call") { try await client.call("fast", params: nil) } == "fast")
        try await running.stop()
    }

    @Test("something that is not a socket is left alone")
    func notASocket() async throws {
        let directory = try TestDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/run", withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: directory.socketPath))
        let server = ControlServer(
            configuration: .init(path: directory.socketPath), handler: FakeHandler(), logger: .init(label: "test"))
        await #expect(throws: ControlServerError.notASocket(path: directory.socketPath)) {
            try await bounded("start") { try await server.start() }
        }
        #expect(try String(contentsOfFile: directory.socketPath, encoding: .utf8) == "keep me")
        directory.remove()
    }

    @Test("the socket is 0600 in a new 0700 directory, and removed when the server stops")
    func permissionsAndRemoval() async throws {
        let running = try await RunningServer.start()
        #expect(mode(of: running.path) == 0o600)
        #expect(mode(of: running.directory.path + "/run") == 0o700)
        try await running.stop(removeDirectory: false)
        #expect(!fileExists(running.path))
        #expect(fileExists(running.directory.path + "/run"))
        running.directory.remove()
    }

    @Test("stopping closes open connections, subscribed or not")
    func stopWithOpenConnections() async throws {
        let running = try await RunningServer.start()
        let idle = try await RawConnection.connect(path: running.path)
        let subscriber = try await RawConnection.connect(path: running.path)
        try await subscriber.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
        #expect(try await subscriber.readJSON()["result"] == ["subscribed": true])
        try await running.stop()
        #expect(await idle.isClosedByPeer())
        #expect(await subscriber.isClosedByPeer())
        idle.close()
        subscriber.close()
        #expect(running.handler.subscriberCount == 0)
    }

    @Test("subscribe delivers events in order and the server lets go when the client leaves")
    func subscribe() async throws {
        let running = try await RunningServer.start()
        let handler = running.handler
        let client = running.client
        let received = try await bounded("events") {
            var events: [JSONValue] = []
            let stream = client.subscribe()
            let emitter = Task {
                try await eventually("subscriber registered") { handler.subscriberCount == 1 }
                for index in 0..<50 { handler.emit(["seq": .int(Int64(index)), "big": .int(1 << 62)]) }
            }
            for try await event in stream {
                events.append(event)
                if events.count == 50 { break }
            }
            try await emitter.value
            return events
        }
        #expect(received.map { $0["seq"]?.intValue } == (0..<50).map { Int64($0) })
        #expect(received.allSatisfy { $0["big"] == .int(1 << 62) })
        try await eventually("subscription dropped") { handler.subscriberCount == 0 && handler.terminatedCount == 1 }

        // On the wire: the acknowledgement, then notifications.
        let raw = try await RawConnection.connect(path: running.path)
        try await raw.send(#"{"jsonrpc":"2.0","id":"s","method":"subscribe"}"# + "\n")
        #expect(try await raw.readLine() == #"{"id":"s","jsonrpc":"2.0","result":{"subscribed":true}}"#)
        try await eventually("raw subscriber registered") { handler.subscriberCount == 1 }
        handler.emit(["kind": "payment"])
        #expect(try await raw.readLine() == #"{"jsonrpc":"2.0","method":"event","params":{"kind":"payment"}}"#)
        // A request on a subscribed connection is still answered.
        try await raw.send(#"{"jsonrpc":"2.0","id":9,"method":"fast"}"# + "\n")
        #expect(try await raw.readJSON()["result"] == "fast")
        raw.close()
        try await eventually("raw subscription dropped") { handler.subscriberCount == 0 }
        try await running.stop()
    }

    @Test("subscribing to a missing daemon fails the stream with daemonUnreachable")
    func subscribeUnreachable() async throws {
        let directory = try TestDirectory()
        let client = ControlClient(path: directory.socketPath, timeout: .seconds(5))
        await #expect {
            try await bounded("subscribe") {
                for try await _ in client.subscribe() {}
            }
        } throws: { error in
            if case .daemonUnreachable = error as? ControlClientError { true } else { false }
        }
        directory.remove()
    }

    @Test("the subscription stream fails with subscriptionEnded when the daemon stops")
    func subscribeDaemonStops() async throws {
        let running = try await RunningServer.start()
        let handler = running.handler
        let client = running.client
        let consumer = Task {
            for try await _ in client.subscribe() {}
        }
        try await eventually("subscriber registered") { handler.subscriberCount == 1 }
        try await running.stop()
        await #expect {
            try await bounded("stream end") { try await consumer.value }
        } throws: { error in
            if case .subscriptionEnded = error as? ControlClientError { true } else { false }
        }
    }

    @Test("the client against a missing socket reports daemonUnreachable")
    func missingSocket() async throws {
        let path = "/tmp/ipc-test-missing-\(UUID().uuidString.prefix(8))/interpayd.sock"
        let client = ControlClient(path: path, timeout: .seconds(5))
        await #expect {
            try await bounded("call") { try await client.call("status", params: nil) }
        } throws: { error in
            guard let error = error as? ControlClientError, case .daemonUnreachable(let where_, let reason) = error
            else { return false }
            return where_ == path && reason == "no socket file"
                && error.description == "cannot reach interpayd at \(path): no socket file"
        }
    }

    @Test(
        "the client against a path that is not a socket says what it is, not that the daemon may be down",
        arguments: [("file", "a regular file"), ("directory", "a directory")])
    func notASocket(kind: String, words: String) async throws {
        let directory = "/tmp/ipc-test-kind-\(UUID().uuidString.prefix(8))"
        #expect(mkdir(directory, 0o700) == 0)
        defer {
            _ = unlink("\(directory)/file")
            _ = rmdir("\(directory)/directory")
            _ = rmdir(directory)
        }
        let path = "\(directory)/\(kind)"
        if kind == "file" {
            #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        } else {
            #expect(mkdir(path, 0o700) == 0)
        }
        let client = ControlClient(path: path, timeout: .seconds(5))
        await #expect {
            try await bounded("call") { try await client.call("status", params: nil) }
        } throws: { error in
            guard let error = error as? ControlClientError, case .socketUnusable(let at, let reason) = error else {
                return false
            }
            return at == path && reason == "it is \(words), not a socket"
        }
    }

    /// Binds a Unix socket at `path` and closes it without removing the file.
    private func makeStaleSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        #expect(UnixSocketAddress.fill(&address, path: path))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(result == 0)
    }
}

@Suite("Control server shutdown under load")
struct ControlServerShutdownTests {
    @Test("stopping while connections pour in neither crashes nor leaves connections open", arguments: 0..<5)
    func stopDuringConnectionBurst(round: Int) async throws {
        let running = try await RunningServer.start()
        let path = running.path
        // Clients connect and send a request in a burst; the server is stopped in the middle of it.
        let clients = Task {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        guard let raw = try? await RawConnection.connect(path: path) else { return true }
                        defer { raw.close() }
                        try? await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"slow"}"# + "\n")
                        // Either an answer or the connection closes; never a hang.
                        do {
                            _ = try await raw.readLine(timeout: .seconds(5))
                            return await raw.isClosedByPeer()
                        } catch UnixSocketConnection.IOFailure.failed {
                            return true
                        }
                    }
                }
                var allEnded = true
                for try await ended in group { allEnded = allEnded && ended }
                return allEnded
            }
        }
        try await Task.sleep(for: .milliseconds(5 * round))
        try await running.stop()
        #expect(try await bounded("clients") { try await clients.value })
        #expect(!fileExists(path))
    }
}
