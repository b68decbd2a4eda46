public import InterPayCore

/// A field of the control contract that takes one of a fixed set of words (a state, a direction): a Swift enum on
/// both sides, its raw value on the wire. A word it does not know is refused naming the ones it knows.
public protocol ControlChoice: RawRepresentable<String>, CaseIterable, Codable, Sendable {}

extension ControlChoice {
    /// The words, in declaration order, for messages: `in, out`.
    public static var choices: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension KeyedDecodingContainer {
    /// A choice, refused with the words it may be (instead of the type's name).
    public func decode<Choice: ControlChoice>(_ type: Choice.Type, forKey key: Key) throws -> Choice {
        let text = try decode(String.self, forKey: key)
        guard let value = Choice(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "must be one of \(Choice.choices)")
        }
        return value
    }

    /// An optional choice: missing or `null` reads as nil.
    public func decodeIfPresent<Choice: ControlChoice>(_ type: Choice.Type, forKey key: Key) throws -> Choice? {
        guard try contains(key) && !decodeNil(forKey: key) else { return nil }
        return try decode(type, forKey: key)
    }
}

/// Which side of a payment or a series this daemon is on, as people say it: `in` (asked to pay: the payer), `out`
/// (asking to be paid: the payee).
public enum PaymentDirection: String, ControlChoice {
    /// This daemon is asked to pay (`PaymentRole.payer`).
    case incoming = "in"
    /// This daemon asked to be paid (`PaymentRole.payee`).
    case outgoing = "out"

    /// The direction of `role`'s side.
    public init(_ role: PaymentRole) {
        self = role == .payer ? .incoming : .outgoing
    }

    /// The side this direction is.
    public var role: PaymentRole { self == .incoming ? .payer : .payee }
}

/// The period `stats` sums over, back from now.
public enum StatsPeriod: String, ControlChoice {
    /// The last 24 hours.
    case day
    /// The last 7 days.
    case week
    /// The last 30 days.
    case month
    /// Everything in the ledger.
    case all
}

/// What `stats` groups its rows by (besides direction and currency).
public enum StatsGroupBy: String, ControlChoice {
    /// The currency alone.
    case currency
    /// The payment's category.
    case category
    /// The peer.
    case peer
}

extension PaymentState: ControlChoice {}

extension PaymentMethod: ControlChoice {}

extension SeriesState: ControlChoice {}

extension PairingPhase: ControlChoice {}
