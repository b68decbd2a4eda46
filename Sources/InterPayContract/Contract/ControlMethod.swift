import FoundationEssentials

/// One method of the control socket: its name, the type of its parameters and the type of its result.
///
/// The daemon answers with `Result`, the CLI asks with `Params` (`ControlClient.call(_:_:)`), and the web app calls
/// the same methods under `/api/` (`webAccess`). Every method is listed once, in `ControlAPI`.
public struct ControlMethod<Params: Codable & Sendable, Result: Codable & Sendable>: AnyControlMethod {
    /// The method name on the wire, e.g. `peers`.
    public let name: String
    /// Whether, and how, the web app may call the method.
    public let webAccess: ControlWebAccess

    /// The method `name`, which the web app may call as `web` says (by default it may not).
    public init(_ name: String, web: ControlWebAccess = .none) {
        self.name = name
        self.webAccess = web
    }

    /// Reads the request's params: an absent `params` (or an array, which no method takes) reads as `{}`.
    ///
    /// Throws `invalidParams` naming the missing or mistyped parameter.
    public func decodeParams(_ params: JSONValue?) throws(RPCError) -> Params {
        let object = JSONValue.object(params?.objectValue ?? [:])
        do {
            return try object.decode(Params.self)
        } catch let error as DecodingError {
            throw .invalidParams(Self.problem(error))
        } catch {
            throw .invalidParams("invalid parameters: \(error)")
        }
    }

    /// The JSON form of a result, as it goes on the wire.
    public func encodeResult(_ result: Result) throws(RPCError) -> EncodedJSON {
        do {
            return try EncodedJSON(encoding: result)
        } catch {
            throw .internalError("cannot encode the answer to \(name): \(error)")
        }
    }

    /// A sentence naming what is wrong with the params.
    private static func problem(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            ((context.codingPath + (last.map { [$0] } ?? [])).map(\.stringValue)).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing parameter '\(path(context, key))'"
        case .valueNotFound(_, let context): return "missing parameter '\(path(context))'"
        case .typeMismatch(let type, let context):
            let kind =
                if type == String.self {
                    "a string"
                } else if type == Bool.self {
                    "true or false"
                } else if type == Int64.self || type == Int.self {
                    "an integer"
                } else {
                    "of type \(type)"
                }
            return "parameter '\(path(context))' must be \(kind)"
        case .dataCorrupted(let context): return "invalid parameter '\(path(context))': \(context.debugDescription)"
        @unknown default: return "invalid parameters: \(error)"
        }
    }
}

/// A control method whatever its params and result: what the method table (`ControlAPI.methods`) lists.
public protocol AnyControlMethod: Sendable {
    /// The method name on the wire.
    var name: String { get }
    /// Whether, and how, the web app may call the method.
    var webAccess: ControlWebAccess { get }
}

/// Whether the web app may call a control method under `/api/`.
public enum ControlWebAccess: Sendable {
    /// `GET /api/NAME` (no params) and `POST /api/NAME`.
    case get
    /// `POST /api/NAME` only.
    case post
    /// Only on the control socket.
    case none
}

/// The params of a method that takes none: any object is accepted, and `{}` is sent.
public struct NoParams: Codable, Sendable, Equatable {
    /// No params.
    public init() {}

    /// Accepts any params, as the methods without params always have.
    public init(from decoder: any Decoder) throws {}

    /// `{}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode([String: String]())
    }
}

/// A member that is always present in the JSON form, `null` when there is no value.
///
/// Synthesized `Codable` leaves a nil optional out; the control methods' answers name every field, with `null` for
/// none (docs/control-api.md), so their optional fields are `@Nullable`. Decoding accepts `null` and a missing member alike.
@propertyWrapper
public struct Nullable<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The value, nil for `null`.
    public var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Reads `null` as nil.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    /// Writes nil as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension KeyedEncodingContainer {
    /// A `@Nullable` member as its value or `null`, written in place: the same JSON as `Nullable.encode(to:)`, without
    /// a nested encoder for each optional member (seventeen in a `PaymentInfo`, which every `send` answers with).
    public mutating func encode<Value>(_ value: Nullable<Value>, forKey key: Key) throws {
        if let wrapped = value.wrappedValue {
            try encode(wrapped, forKey: key)
        } else {
            try encodeNil(forKey: key)
        }
    }
}

extension KeyedDecodingContainer {
    /// A `@Nullable` member may be missing too (an older daemon's answer): it reads as nil.
    public func decode<Value>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
        try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
    }
}
