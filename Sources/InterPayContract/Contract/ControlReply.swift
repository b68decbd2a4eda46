/// A control method's typed result, and the JSON it was read from (what `interpay --json` prints, as received).
public struct ControlReply<Value: Sendable>: Sendable {
    /// The typed result.
    public var value: Value
    /// The result as the daemon sent it.
    public var json: JSONValue

    /// A reply.
    public init(value: Value, json: JSONValue) {
        self.value = value
        self.json = json
    }
}
