public import GRDB
public import InterPayCore

/// A peer this daemon has talked to (`peer`): its display name, last known address and when it was seen.
public struct PeerRecord: Sendable, Hashable, Codable {
    /// The peer's identity.
    public var peerID: PeerID
    /// The display name from its last `hello` or DNS-SD instance (not unique, chosen by the peer).
    public var name: String
    /// The last address it was reached at or connected from (`HOST:PORT`), if known.
    public var address: String?
    /// When it was first seen.
    public var firstSeen: Timestamp
    /// When it was last seen.
    public var lastSeen: Timestamp

    /// Describes a peer seen at `seenAt`; on an upsert of a known peer, `firstSeen` keeps its stored value.
    public init(peerID: PeerID, name: String, address: String?, seenAt: Timestamp) {
        self.peerID = peerID
        self.name = name
        self.address = address
        self.firstSeen = seenAt
        self.lastSeen = seenAt
    }
}

extension PeerRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "peer"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        case peerID, name, address, firstSeen, lastSeen
    }
}
