public import GRDB
public import InterPayCore

/// A peer paired with a verification code (`trustedPeer`): trusted until it is untrusted.
public struct TrustedPeerRecord: Sendable, Hashable, Codable {
    /// The peer's identity: what the pairing proved.
    public var peerID: PeerID
    /// Its display name when it was paired (names are chosen by peers; the ID is what counts).
    public var name: String
    /// When the local user confirmed the code.
    public var pairedAt: Timestamp
    /// The name it was paired under, kept once the user renames it (`rename`); nil while `name` is still that one.
    /// The peer is flagged `[name changed]` only when it announces neither.
    public var pairedName: String?

    /// Describes a peer paired at `pairedAt`.
    public init(peerID: PeerID, name: String, pairedAt: Timestamp) {
        self.peerID = peerID
        self.name = String(name.unicodeScalars.prefix(Limits.maxNameLength))
        self.pairedAt = pairedAt
    }
}

extension TrustedPeerRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "trustedPeer"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        case peerID, name, pairedAt, pairedName
    }
}
