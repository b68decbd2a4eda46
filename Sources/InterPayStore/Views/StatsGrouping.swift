/// How `AppDatabase.stats(since:groupBy:)` groups accepted payments. Rows are always also split by currency and
/// role, because amounts in different currencies are never added up.
public enum StatsGrouping: String, Sendable, Hashable, CaseIterable {
    /// By the payment's category (payments without one form the group with a nil key).
    case category
    /// By the other side of the payment (the key is the peer ID's text form).
    case peer
    /// By currency only (the key is the currency code).
    case currency

    /// The `payment` column that gives the group key. A fixed name, never user input.
    var column: String {
        switch self {
        case .category: "category"
        case .peer: "peerID"
        case .currency: "currency"
        }
    }
}
