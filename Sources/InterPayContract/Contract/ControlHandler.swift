/// What the control server asks the daemon: answers to method calls, and the event feed behind `subscribe`.
///
/// The server calls `handle` once per request, one request at a time per connection (in the order received),
/// possibly concurrently for different connections. `subscribe` is answered by the server itself.
public protocol ControlHandler: Sendable {
    /// Answers one request with its result's JSON text. `params` is the request's object or array, or nil when it
    /// had none.
    ///
    /// Throw `RPCError.methodNotFound(method)` for a method you do not know; every thrown error is sent to the
    /// client as is.
    func handle(method: String, params: JSONValue?) async throws(RPCError) -> EncodedJSON

    /// A new stream of the daemon's events for one subscriber, starting now.
    ///
    /// The server iterates it until the client goes away, then drops it; the stream's `onTermination` is the place
    /// to unregister the subscriber.
    func events() -> AsyncStream<JSONValue>
}
