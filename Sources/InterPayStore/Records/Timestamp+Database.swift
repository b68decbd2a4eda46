public import GRDB
public import InterPayCore

// The ledger stores a time as its seconds, as the records' `Codable` encoding did, but reads it back without the
// wire's bound: `Limits.maxTime` refuses a frame's time after 9999, and a ledger written before that bound may
// still hold one (a series `start` a peer chose); decoding through `Timestamp`'s `Decodable` would make the whole
// row, and every list that holds it, unreadable. GRDB's record coders prefer this conformance to `Codable`.
extension Timestamp: DatabaseValueConvertible {
    /// The seconds since the epoch, as an integer.
    public var databaseValue: DatabaseValue { secondsSince1970.databaseValue }

    /// The time of an integer column; nil for anything else.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Timestamp? {
        Int64.fromDatabaseValue(dbValue).map(Timestamp.init(secondsSince1970:))
    }
}
