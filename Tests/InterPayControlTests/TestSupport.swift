import Foundation
import Logging
import Synchronization
import Testing

@testable import InterPayContract
@testable import InterPayControl
@testable import InterPayControlClient

#if canImport(Glibc)
    import Glibc
#endif

/// A waited-for thing did not happen in time.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out: \(what)" }
}

/// Runs `operation` in a task and waits at most `timeout` for it, even if it ignores cancellation.
func bounded<T: Sendable>(
    _ what: String, timeout: Duration = .seconds(10), _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let task = Task { try await operation() }
    let race = Race<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.arm(continuation)
        Task {
            let result = await task.result
            race.finish(result)
        }
        Task {
            try? await Task.sleep(for: timeout)
            task.cancel()
            race.finish(.failure(TimedOut(what: what)))
        }
    }
}

/// Resumes a continuation once, with whichever result arrives first.
private final class Race<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func arm(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func finish(_ result: Result<T, any Error>) {
        continuation.withLock { stored in
            stored?.resume(with: result)
            stored = nil
        }
    }
}

/// Waits until `condition` holds, checking every 10 ms, for at most `timeout` of checks (a stalled process does not
/// use them up: `InterPayTestSupport.eventually`).
func eventually(
    _ what: String, timeout: Duration = .seconds(10), _ condition: @Sendable () -> Bool
) async throws {
    for _ in 0..<max(1, Int(timeout / .milliseconds(10))) {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    guard condition() else { throw TimedOut(what: what) }
}

/// A short-named temporary directory (Unix socket paths are limited to 107 bytes).
struct TestDirectory {
    let path: String

    init() throws {
        path = "/tmp/ipc-test-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
    }

    /// The socket path used by most tests: in a subdirectory the server has to create.
    var socketPath: String { path + "/run/interpayd.sock" }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The mode bits (permission part) of a file.
func mode(of path: String) -> UInt32? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return UInt32(info.st_mode) & 0o7777
}

/// The group of a file.
func group(of path: String) -> UInt32? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_gid
}

func fileExists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

/// A handler for tests: `echo`, `slow`, `fast`, `fail` (throws the error described by its params), and an event
/// feed driven by `emit`.
final class FakeHandler: ControlHandler {
    private struct State {
        var subscribers: [Int: AsyncStream<JSONValue>.Continuation] = [:]
        var nextID = 0
        var terminated = 0
    }

    private let state = Mutex(State())

    func handle(method: String, params: JSONValue?) async throws(RPCError) -> EncodedJSON {
        EncodedJSON(try await answer(method: method, params: params))
    }

    private func answer(method: String, params: JSONValue?) async throws(RPCError) -> JSONValue {
        switch method {
        case "echo":
            return params ?? .null
        case "slow":
            try? await Task.sleep(for: .milliseconds(200))
            return "slow"
        case "fast":
            return "fast"
        case "fail":
            throw RPCError(
                code: .init(rawValue: params?["code"]?.intValue ?? -32603),
                message: params?["message"]?.stringValue ?? "failed", data: params?["data"])
        default:
            throw .methodNotFound(method)
        }
    }

    func events() -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscribers.removeValue(forKey: id)
                state.terminated += 1
            }
        }
        return stream
    }

    /// Sends an event to every subscriber.
    func emit(_ event: JSONValue) {
        for continuation in state.withLock({ Array($0.subscribers.values) }) { continuation.yield(event) }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    var terminatedCount: Int { state.withLock { $0.terminated } }
}

/// A control server on a temporary socket, running in a task.
struct RunningServer {
    let directory: TestDirectory
    let server: ControlServer
    let handler: FakeHandler
    let task: Task<Void, any Error>

    var path: String { server.path }
    var client: ControlClient { ControlClient(path: path, timeout: .seconds(10)) }

    static func start(
        in directory: TestDirectory? = nil, configure: (inout ControlServerConfiguration) -> Void = { _ in }
    ) async throws -> RunningServer {
        let directory = try directory ?? TestDirectory()
        var configuration = ControlServerConfiguration(path: directory.socketPath)
        configure(&configuration)
        let handler = FakeHandler()
        var logger = Logger(label: "test.control")
        logger.logLevel = .critical
        let server = ControlServer(configuration: configuration, handler: handler, logger: logger)
        try await bounded("server start") { try await server.start() }
        let task = Task { try await server.run() }
        return RunningServer(directory: directory, server: server, handler: handler, task: task)
    }

    /// Cancels the server and waits (bounded) for it to finish.
    func stop(removeDirectory: Bool = true) async throws {
        task.cancel()
        let task = self.task
        try await bounded("server stop") { try await task.value }
        if removeDirectory { directory.remove() }
    }
}

/// Runs blocking socket work on a thread of its own, never on a cooperative thread.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// A raw connection for sending arbitrary bytes and reading lines, with every wait bounded.
final class RawConnection: Sendable {
    let connection: UnixSocketConnection
    private let reader = Mutex(LineReader(maxLength: 1 << 20))

    private init(connection: UnixSocketConnection) {
        self.connection = connection
    }

    static func connect(path: String) async throws -> RawConnection {
        try await onThread {
            RawConnection(connection: try UnixSocketConnection.connect(path: path, timeout: .seconds(5)))
        }
    }

    func send(_ text: String) async throws {
        let connection = self.connection
        try await onThread { try connection.send(Array(text.utf8)) }
    }

    /// The next line as text; nil at end of input.
    func readLine(timeout: Duration = .seconds(5)) async throws -> String? {
        try await onThread { [self] in
            try reader.withLock { reader in
                try reader.nextLine(from: connection, deadline: .now + timeout)
            }
            .map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The next line parsed; fails at end of input.
    func readJSON(timeout: Duration = .seconds(5)) async throws -> JSONValue {
        guard let line = try await readLine(timeout: timeout) else {
            throw TimedOut(what: "a line (got end of input)")
        }
        return try JSONValue(parsing: line)
    }

    /// True when the server closed the connection (end of input or reset) before `timeout`.
    func isClosedByPeer(timeout: Duration = .seconds(5)) async -> Bool {
        do {
            return try await readLine(timeout: timeout) == nil
        } catch UnixSocketConnection.IOFailure.failed {
            return true
        } catch {
            return false
        }
    }

    func close() {
        connection.close()
    }
}

/// The error code of a response object.
func errorCode(_ response: JSONValue) -> Int64? {
    response["error"]?["code"]?.intValue
}
