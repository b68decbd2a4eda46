/// A JSON-RPC 2.0 error object: a code, a message for people, and optional structured data.
///
/// Handlers throw it; the server sends it as the `error` member of the response. The standard codes are
/// `RPCError.Code.parseError` … `.internalError`; InterPay's application codes are `.notFound`, `.conflict`,
/// `.peerUnreachable`, `.forbidden` and `.unavailable`.
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A JSON-RPC error code.
    public struct Code: RawRepresentable, Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        public var rawValue: Int64

        public init(rawValue: Int64) {
            self.rawValue = rawValue
        }

        public init(integerLiteral value: Int64) {
            self.rawValue = value
        }

        /// -32700: the line is not valid JSON.
        public static let parseError: Code = -32700
        /// -32600: the JSON is not a valid request (or the line is too long).
        public static let invalidRequest: Code = -32600
        /// -32601: no such method.
        public static let methodNotFound: Code = -32601
        /// -32602: the method exists but its parameters are wrong.
        public static let invalidParams: Code = -32602
        /// -32603: the daemon failed while handling the request.
        public static let internalError: Code = -32603
        /// -32001: the payment, peer or other object named in the request does not exist.
        public static let notFound: Code = -32001
        /// -32002: the request conflicts with the current state (e.g. accepting a cancelled payment).
        public static let conflict: Code = -32002
        /// -32003: the peer the request needs cannot be reached.
        public static let peerUnreachable: Code = -32003
        /// -32004: the caller is not allowed to use the control socket or this method.
        public static let forbidden: Code = -32004
        /// -32005: the service needed is not available right now (e.g. exchange rates).
        public static let unavailable: Code = -32005

        /// The name of a known code ("notFound"), or nil.
        public var name: String? {
            switch self {
            case .parseError: "parseError"
            case .invalidRequest: "invalidRequest"
            case .methodNotFound: "methodNotFound"
            case .invalidParams: "invalidParams"
            case .internalError: "internalError"
            case .notFound: "notFound"
            case .conflict: "conflict"
            case .peerUnreachable: "peerUnreachable"
            case .forbidden: "forbidden"
            case .unavailable: "unavailable"
            default: nil
            }
        }

        public var description: String { String(rawValue) }
    }

    /// The error code.
    public var code: Code
    /// A short sentence for people.
    public var message: String
    /// Optional structured detail.
    public var data: JSONValue?

    /// An error with the given code, message and optional data.
    public init(code: Code, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (error \(code.rawValue))" }

    // MARK: Factories

    /// -32700 with `message`.
    public static func parseError(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .parseError, message: message, data: data)
    }

    /// -32600 with `message`.
    public static func invalidRequest(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .invalidRequest, message: message, data: data)
    }

    /// -32601 for `method`.
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: .methodNotFound, message: "method not found: \(method)", data: ["method": .string(method)])
    }

    /// -32602 with `message`.
    public static func invalidParams(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .invalidParams, message: message, data: data)
    }

    /// -32603 with `message`.
    public static func internalError(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .internalError, message: message, data: data)
    }

    /// -32001 with `message`.
    public static func notFound(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .notFound, message: message, data: data)
    }

    /// -32002 with `message`.
    public static func conflict(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .conflict, message: message, data: data)
    }

    /// -32003 with `message`.
    public static func peerUnreachable(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .peerUnreachable, message: message, data: data)
    }

    /// -32004 with `message`.
    public static func forbidden(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .forbidden, message: message, data: data)
    }

    /// -32005 with `message`.
    public static func unavailable(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: .unavailable, message: message, data: data)
    }

    // MARK: JSON form

    /// The JSON form: `{"code":…,"message":…}` plus `data` when present.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["code": .int(code.rawValue), "message": .string(message)]
        if let data { members["data"] = data }
        return .object(members)
    }

    /// Reads an error object; nil when `value` is not one (no integer `code` or no string `message`).
    public init?(_ value: JSONValue) {
        guard case .object(let members) = value, case .int(let code)? = members["code"],
            case .string(let message)? = members["message"]
        else { return nil }
        self.init(code: Code(rawValue: code), message: message, data: members["data"])
    }
}
