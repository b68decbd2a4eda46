/// A JSON-RPC 2.0 response: the id of the request it answers and either a result or an error.
public struct RPCResponse: Sendable, Hashable {
    /// The id of the request answered; nil (`null` on the wire) when the request's id could not be read.
    public var id: RPCID?
    /// The result, or the error.
    public var outcome: Result<JSONValue, RPCError>

    /// A response with an explicit outcome.
    public init(id: RPCID?, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }

    /// A success response.
    public init(id: RPCID?, result: JSONValue) {
        self.init(id: id, outcome: .success(result))
    }

    /// An error response.
    public init(id: RPCID?, error: RPCError) {
        self.init(id: id, outcome: .failure(error))
    }

    /// The result, when the request succeeded.
    public var result: JSONValue? {
        if case .success(let value) = outcome { value } else { nil }
    }

    /// The error, when the request failed.
    public var error: RPCError? {
        if case .failure(let error) = outcome { error } else { nil }
    }

    /// The JSON form.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["jsonrpc": .string(RPCRequest.version), "id": id?.jsonValue ?? .null]
        switch outcome {
        case .success(let value): members["result"] = value
        case .failure(let error): members["error"] = error.jsonValue
        }
        return .object(members)
    }

    /// Reads a response from parsed JSON; nil when `value` is not one.
    ///
    /// A response is an object with `jsonrpc` "2.0", an `id` (string, integer or null) and exactly one of `result`
    /// and `error` (a valid error object).
    public init?(_ value: JSONValue) {
        guard case .object(let members) = value, members["jsonrpc"] == .string(RPCRequest.version),
            let rawID = members["id"]
        else { return nil }
        let id: RPCID?
        if rawID == .null {
            id = nil
        } else if let parsed = RPCID(rawID) {
            id = parsed
        } else {
            return nil
        }
        switch (members["result"], members["error"]) {
        case (let result?, nil):
            self.init(id: id, result: result)
        case (nil, let error?):
            guard let error = RPCError(error) else { return nil }
            self.init(id: id, error: error)
        default:
            return nil
        }
    }
}
