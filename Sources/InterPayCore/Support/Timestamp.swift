public import FoundationEssentials

/// A point in time as whole seconds since the Unix epoch (UTC): the wire's `time` type.
///
/// Whole seconds keep frames exact and comparisons free of floating point; expiry needs nothing finer.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let secondsSince1970: Int64

    /// Wraps a count of seconds since the epoch.
    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    /// The whole second that contains `date`.
    public init(_ date: Date) {
        self.secondsSince1970 = Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// The current time, for callers that own the clock (the state machine never reads it itself).
    public static var now: Timestamp { Timestamp(Date()) }

    /// This time as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

    /// This time moved by a number of seconds.
    public func adding(seconds: Int64) -> Timestamp {
        Timestamp(
            secondsSince1970: secondsSince1970.addingReportingOverflow(seconds).overflow
                ? Int64.max : secondsSince1970 + seconds)
    }

    public var description: String { date.formatted(.iso8601) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let seconds = try container.decode(Int64.self)
        guard seconds >= 0 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "time must not be negative")
        }
        guard seconds <= Limits.maxTime else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "time must not be after 9999-12-31T23:59:59Z (\(Limits.maxTime))")
        }
        self.secondsSince1970 = seconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSince1970)
    }
}
