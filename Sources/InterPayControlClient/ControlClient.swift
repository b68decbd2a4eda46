import Dispatch
import FoundationEssentials
import Glibc
public import InterPayContract
import Synchronization

/// Talks to the local daemon over the control socket; what the `interpay` CLI uses.
///
/// Each call connects, sends one request, reads one response and closes, with plain blocking POSIX I/O. The
/// `…Blocking` methods do it on the calling thread: the CLI, a program that only waits for the daemon, calls them
/// from its main thread and so starts no thread at all (no event loop, no thread pool, no concurrency runtime: they
/// were most of a short command's time). The `async` methods do the same work on a Dispatch queue of their own
/// (`blockingWork`), so that no cooperative thread is ever blocked. The module links neither NIO nor the control
/// socket's server: a command's process maps and starts only what a client needs.
public struct ControlClient: Sendable {
    /// The default time to wait for the daemon.
    public static let defaultTimeout: Duration = .seconds(30)
    /// The default bound on one response line: 64 MiB.
    public static let defaultMaxResponseLength = 64 << 20

    /// The socket path.
    public var path: String
    /// How long to wait for connecting and for the response (for `subscribe`, for its acknowledgement).
    public var timeout: Duration
    /// The longest response line accepted, in bytes.
    public var maxResponseLength: Int

    /// A client for the socket at `path` (see `ControlSocketPath.resolve`).
    public init(
        path: String, timeout: Duration = Self.defaultTimeout, maxResponseLength: Int = Self.defaultMaxResponseLength
    ) {
        self.path = path
        self.timeout = timeout
        self.maxResponseLength = maxResponseLength
    }

    /// Calls `method` with `params` and returns its result.
    ///
    /// Throws `.daemonUnreachable` when no daemon answers (no socket, refused, permission denied, timeout),
    /// `.rpc` with the daemon's error, `.invalidResponse` when the answer is not a JSON-RPC response.
    public func call(_ method: String, params: JSONValue? = nil) async throws(ControlClientError) -> JSONValue {
        let client = self
        let outcome = await withCheckedContinuation { continuation in
            Self.blockingWork.async { continuation.resume(returning: client.exchange(method: method, params: params)) }
        }
        return try outcome.get()
    }

    /// Where the `async` methods' blocking I/O runs: a concurrent queue, whose threads Dispatch adds as calls block
    /// (never the concurrency runtime's cooperative threads).
    private static let blockingWork = DispatchQueue(
        label: "InterPayControlClient.blocking", qos: .userInitiated, attributes: .concurrent)

    /// Calls the control method `method` with `params` and returns its typed result, with the JSON as received.
    ///
    /// Throws as `call(_:params:)` does, and `.invalidResponse` when the result is not the method's `Result`.
    public func call<Params, Result>(
        _ method: ControlMethod<Params, Result>, _ params: Params
    ) async throws(ControlClientError) -> ControlReply<Result> {
        try Self.reply(to: method, try await call(method.name, params: try Self.encoded(params, of: method)))
    }

    /// `call(_:params:)` on the calling thread, which it blocks until the answer or the timeout.
    public func callBlocking(_ method: String, params: JSONValue? = nil) throws(ControlClientError) -> JSONValue {
        try exchange(method: method, params: params).get()
    }

    /// `call(_:_:)` on the calling thread, which it blocks until the answer or the timeout.
    public func callBlocking<Params, Result>(
        _ method: ControlMethod<Params, Result>, _ params: Params
    ) throws(ControlClientError) -> ControlReply<Result> {
        try Self.reply(to: method, try callBlocking(method.name, params: try Self.encoded(params, of: method)))
    }

    /// `method`'s params as JSON.
    private static func encoded<Params, Result>(
        _ params: Params, of method: ControlMethod<Params, Result>
    ) throws(ControlClientError) -> JSONValue {
        do {
            return try JSONValue(encoding: params)
        } catch {
            throw .invalidResponse("cannot encode the params of \(method.name): \(error)")
        }
    }

    /// The answer `json` to `method`, typed.
    private static func reply<Params, Result>(
        to method: ControlMethod<Params, Result>, _ json: JSONValue
    ) throws(ControlClientError) -> ControlReply<Result> {
        do {
            return ControlReply(value: try json.decode(Result.self), json: json)
        } catch {
            throw .invalidResponse("the answer to \(method.name) is not understood: \(error)")
        }
    }

    /// Calls a control method that takes no params.
    public func call<Result>(
        _ method: ControlMethod<NoParams, Result>
    ) async throws(ControlClientError) -> ControlReply<Result> {
        try await call(method, NoParams())
    }

    /// Subscribes to the daemon's events, for `interpay watch`.
    ///
    /// The stream yields the `params` of every `event` notification in order. It fails with a `ControlClientError`
    /// when the subscription cannot be made, and with `.subscriptionEnded` when the daemon goes away after it. Stopping the
    /// iteration (or cancelling its task) closes the connection.
    public func subscribe() -> AsyncThrowingStream<JSONValue, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: JSONValue.self, throwing: (any Error).self)
        let subscription = Subscription()
        continuation.onTermination = { _ in subscription.terminate() }
        let client = self
        // A queue of its own: a subscription blocks its thread for as long as it lasts.
        DispatchQueue(label: "InterPayControlClient.subscription").async {
            do {
                try client.runSubscription(subscription: subscription) { continuation.yield($0) }
                continuation.finish()
            } catch {
                // After the consumer went away, the failure is only the shutdown we caused.
                if subscription.isTerminated {
                    continuation.finish()
                } else {
                    continuation.finish(throwing: error)
                }
            }
        }
        return stream
    }

    /// `subscribe()` on the calling thread: `onSubscribed` runs once the daemon took the subscription, then
    /// `onEvent` gets the `params` of every event, in order, until the subscription fails (as `subscribe()` fails: it
    /// never ends otherwise).
    public func subscribeBlocking(
        onSubscribed: () -> Void = {}, _ onEvent: (JSONValue) -> Void
    ) throws(ControlClientError) {
        try runSubscription(subscription: Subscription(), onSubscribed: onSubscribed, onEvent)
    }

    // MARK: Blocking work (on the calling thread, or a Dispatch queue)

    /// The request id the client uses; one request per connection.
    private static let requestID: RPCID = 1

    private func exchange(method: String, params: JSONValue?) -> Result<JSONValue, ControlClientError> {
        let deadline = ContinuousClock.now + timeout
        let connection: UnixSocketConnection
        do {
            connection = try UnixSocketConnection.connect(path: path, timeout: timeout)
        } catch {
            return .failure(unreachable(error))
        }
        defer { connection.close() }
        let request = RPCRequest(id: Self.requestID, method: method, params: params)
        var sendFailure: UnixSocketConnection.IOFailure?
        do {
            try connection.send(Self.line(request.jsonValue))
        } catch {
            // The daemon may have answered and closed already (e.g. a refusal); read what it sent before failing.
            sendFailure = error
        }
        var reader = LineReader(maxLength: maxResponseLength)
        do throws(ControlClientError) {
            guard let response = try readResponse(from: connection, reader: &reader, deadline: deadline) else {
                if let sendFailure { return .failure(lost(unreachable(sendFailure))) }
                return .failure(.answerLost(path: path, reason: "the daemon closed the connection without answering"))
            }
            return response.outcome.mapError { .rpc($0) }
        } catch {
            if let sendFailure, case .daemonUnreachable = error { return .failure(lost(unreachable(sendFailure))) }
            return .failure(lost(error))
        }
    }

    /// The next line from the daemon; nil at end of input.
    private func nextLine(
        from connection: UnixSocketConnection, reader: inout LineReader, deadline: ContinuousClock.Instant?
    ) throws(ControlClientError) -> [UInt8]? {
        do {
            return try reader.nextLine(from: connection, deadline: deadline)
        } catch {
            throw readFailure(error)
        }
    }

    /// Reads lines until the response to our request; nil at end of input. Notifications are skipped.
    private func readResponse(
        from connection: UnixSocketConnection, reader: inout LineReader, deadline: ContinuousClock.Instant?
    ) throws(ControlClientError) -> RPCResponse? {
        while true {
            guard let line = try nextLine(from: connection, reader: &reader, deadline: deadline) else { return nil }
            guard let value = try Self.parse(line) else { continue }
            if value["method"] != nil { continue }  // a notification, not our answer
            guard let response = RPCResponse(value) else {
                throw .invalidResponse("not a JSON-RPC response: \(Self.excerpt(line))")
            }
            // A null id answers a request the daemon could not read (or a refused connection): it is ours too.
            guard response.id == nil || response.id == Self.requestID else {
                throw .invalidResponse("answer to another request (id \(response.id?.description ?? "null"))")
            }
            return response
        }
    }

    /// Subscribes and hands each event's `params` to `onEvent` until the connection ends (a failure), or
    /// `subscription` is terminated (returns).
    private func runSubscription(
        subscription: Subscription, onSubscribed: () -> Void = {}, _ onEvent: (JSONValue) -> Void
    ) throws(ControlClientError) {
        let connection: UnixSocketConnection
        do {
            connection = try UnixSocketConnection.connect(path: path, timeout: timeout)
        } catch {
            throw unreachable(error)
        }
        defer { connection.close() }
        guard subscription.attach(connection) else { return }
        var reader = LineReader(maxLength: maxResponseLength)
        let request = RPCRequest(id: Self.requestID, method: "subscribe")
        do {
            try connection.send(Self.line(request.jsonValue))
        } catch {
            throw unreachable(error)
        }
        guard
            let response = try readResponse(
                from: connection, reader: &reader, deadline: .now + timeout)
        else {
            throw .daemonUnreachable(path: path, reason: "the daemon closed the connection")
        }
        if case .failure(let error) = response.outcome { throw .rpc(error) }
        onSubscribed()
        while true {
            let line: [UInt8]?
            do {
                line = try nextLine(from: connection, reader: &reader, deadline: nil)
            } catch .daemonUnreachable(let path, let reason) {
                throw .subscriptionEnded(path: path, reason: reason)
            }
            guard let line else {
                throw .subscriptionEnded(path: path, reason: "the daemon closed the connection")
            }
            guard let value = try Self.parse(line) else { continue }
            guard value["method"] == "event" else { continue }
            onEvent(value["params"] ?? .null)
        }
    }

    /// A failure once connected: the request may have reached the daemon, so an unreachable daemon is a lost answer.
    private func lost(_ error: ControlClientError) -> ControlClientError {
        if case .daemonUnreachable(let path, let reason) = error { return .answerLost(path: path, reason: reason) }
        return error
    }

    private func unreachable(_ failure: UnixSocketConnection.IOFailure) -> ControlClientError {
        switch failure {
        case .timedOut: .daemonUnreachable(path: path, reason: "no answer within \(timeout)")
        case .failed(let reason): .daemonUnreachable(path: path, reason: reason)
        case .unusable(let reason): .socketUnusable(path: path, reason: reason)
        case .lineTooLong(let limit): .invalidResponse("response line longer than \(limit) bytes")
        }
    }

    private func readFailure(_ failure: UnixSocketConnection.IOFailure) -> ControlClientError {
        switch failure {
        case .failed(let reason): .daemonUnreachable(path: path, reason: "connection lost: \(reason)")
        default: unreachable(failure)
        }
    }

    /// A parsed line; nil for a blank one.
    private static func parse(_ line: [UInt8]) throws(ControlClientError) -> JSONValue? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        do {
            return try JSONValue(parsing: line)
        } catch {
            throw .invalidResponse("not JSON (\(error)): \(excerpt(line))")
        }
    }

    private static func excerpt(_ line: [UInt8]) -> String {
        let text = String(decoding: line.prefix(200), as: UTF8.self)
        return line.count > 200 ? text + "…" : text
    }

    private static func line(_ value: JSONValue) -> [UInt8] {
        var bytes = value.jsonBytes
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

/// The link between a subscription's stream and its thread: stopping the stream shuts the connection down.
private final class Subscription: Sendable {
    private struct State {
        var connection: UnixSocketConnection?
        var terminated = false
    }

    private let state = Mutex(State())

    /// Records the connection; false when the consumer is already gone (the caller then just closes it).
    func attach(_ connection: UnixSocketConnection) -> Bool {
        state.withLock { state in
            guard !state.terminated else { return false }
            state.connection = connection
            return true
        }
    }

    /// The consumer went away: wake the thread.
    func terminate() {
        state.withLock { state in
            state.terminated = true
            state.connection?.shutdown()
            state.connection = nil
        }
    }

    var isTerminated: Bool {
        state.withLock { $0.terminated }
    }
}
