/// A JSON-RPC 2.0 request, or a notification when it has no `id`.
///
/// On the wire: `{"jsonrpc":"2.0","id":1,"method":"peers","params":{…}}`, one object per line.
public struct RPCRequest: Sendable, Hashable {
    /// The protocol version every message carries in `jsonrpc`.
    public static let version = "2.0"

    /// The request id; nil for a notification, which gets no response.
    public var id: RPCID?
    /// The method name.
    public var method: String
    /// The parameters: an object or an array, or nil when absent.
    public var params: JSONValue?

    /// A request (or a notification when `id` is nil).
    public init(id: RPCID?, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// True when the request has no id and expects no response.
    public var isNotification: Bool { id == nil }

    /// The JSON form.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["jsonrpc": .string(Self.version), "method": .string(method)]
        if let id { members["id"] = id.jsonValue }
        if let params { members["params"] = params }
        return .object(members)
    }

    /// Reads a request from parsed JSON, checking it against JSON-RPC 2.0.
    ///
    /// Throws an `invalidRequest` error saying what is wrong: not an object, `jsonrpc` not "2.0", `method` not a
    /// string, `params` neither object nor array, `id` neither string nor integer.
    public init(validating value: JSONValue) throws(RPCError) {
        guard case .object(let members) = value else {
            if case .array = value { throw .invalidRequest("batch requests are not supported") }
            throw .invalidRequest("a request must be a JSON object")
        }
        guard members["jsonrpc"] == .string(Self.version) else {
            throw .invalidRequest("\"jsonrpc\" must be \"2.0\"")
        }
        guard case .string(let method)? = members["method"] else {
            throw .invalidRequest("\"method\" must be a string")
        }
        var id: RPCID?
        if let rawID = members["id"] {
            guard let parsed = RPCID(rawID) else { throw .invalidRequest("\"id\" must be a string or an integer") }
            id = parsed
        }
        let params = members["params"]
        switch params {
        case nil, .object?, .array?: break
        default: throw .invalidRequest("\"params\" must be an object or an array")
        }
        self.init(id: id, method: method, params: params)
    }
}
