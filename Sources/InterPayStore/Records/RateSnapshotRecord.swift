import Foundation
public import GRDB
public import InterPayCore

/// The last exchange rates fetched for one base currency (`rateSnapshot`), kept as exact decimal text.
///
/// The store does not interpret the rates: `rates` maps currency codes to decimal strings such as `"0.9013"` exactly
/// as the rates service parsed them, so nothing is ever rounded through floating point on the way in or out.
public struct RateSnapshotRecord: Sendable, Hashable, Codable {
    /// The currency every rate is relative to (one unit of `base` buys `rate` units of each currency).
    public var base: CurrencyCode
    /// When this daemon fetched the snapshot.
    public var fetchedAt: Timestamp
    /// When the provider last updated these rates (`time_last_update_unix`).
    public var lastUpdate: Timestamp
    /// When the provider will publish newer rates (`time_next_update_unix`); no refetch is useful before then.
    public var nextUpdate: Timestamp
    /// Where the rates came from: the provider's URL with any API key masked.
    public var source: String
    /// A JSON object mapping currency codes to exact decimal strings, e.g. `{"EUR":"0.9013","USD":"1"}`.
    public var ratesJSON: String

    /// Describes a snapshot; `rates` is stored as a JSON object with sorted keys and string values.
    public init(
        base: CurrencyCode, fetchedAt: Timestamp, lastUpdate: Timestamp, nextUpdate: Timestamp, source: String,
        rates: [String: String]
    ) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(rates)
        } catch {
            throw .invalidValue(operation: "store the \(base) exchange rates", reason: String(describing: error))
        }
        self.base = base
        self.fetchedAt = fetchedAt
        self.lastUpdate = lastUpdate
        self.nextUpdate = nextUpdate
        self.source = source
        self.ratesJSON = String(decoding: data, as: UTF8.self)
    }

    /// The rates as stored: currency code → exact decimal text.
    public func rates() throws(StoreError) -> [String: String] {
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(ratesJSON.utf8))
        } catch {
            throw .corruptRecord(
                table: Self.databaseTableName, key: base.code,
                reason: "ratesJSON is not an object of decimal strings: \(error)")
        }
    }
}

extension RateSnapshotRecord: FetchableRecord, PersistableRecord {
    /// The table the records live in.
    public static let databaseTableName = "rateSnapshot"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        /// The base currency (primary key).
        case base
        /// When the snapshot was fetched.
        case fetchedAt
        /// The provider's last update.
        case lastUpdate
        /// The provider's next update.
        case nextUpdate
        /// Where the rates came from (key masked).
        case source
        /// The rates as a JSON object of decimal strings.
        case ratesJSON
    }
}
