public import GRDB
public import InterPayCore

/// Failed pairing attempts with one peer and the pairing lock, if any (`pairingLockout`, PROTOCOL.md §7.9).
///
/// A row exists while the count is not zero or a lock is set; it outlives restarts, so that restarting the daemon
/// never lifts a lock or forgets failures.
public struct PairingLockoutRecord: Sendable, Hashable, Codable {
    /// The peer the attempts were with.
    public var peerID: PeerID
    /// Failed attempts since the last right code or the last lock.
    public var failures: Int
    /// Pairing with the peer is refused until then.
    public var lockedUntil: Timestamp?

    /// Describes `failures` failed attempts with `peerID` and a lock until `lockedUntil`, if any.
    public init(peerID: PeerID, failures: Int, lockedUntil: Timestamp?) {
        self.peerID = peerID
        self.failures = failures
        self.lockedUntil = lockedUntil
    }
}

extension PairingLockoutRecord: FetchableRecord, PersistableRecord {
    /// The table: `pairingLockout`.
    public static let databaseTableName = "pairingLockout"
}
