public import InterPayCore

/// The answer of `peers`: the peers this daemon knows, and its static peer addresses.
public struct PeerList: Codable, Sendable, Equatable {
    /// Peers with a session first, then the others the ledger knows.
    public var peers: [PeerInfo]
    /// The configured static peers (`--peer HOST:PORT`).
    public var `static`: [StaticPeerInfo]

    /// A list.
    public init(peers: [PeerInfo], static: [StaticPeerInfo]) {
        self.peers = peers
        self.static = `static`
    }
}

/// A known peer (`peers`).
public struct PeerInfo: Codable, Sendable, Equatable {
    /// The name it is shown under.
    public var name: String
    /// What a paired peer announces, when that differs from `name`.
    @Nullable public var announcedName: String?
    /// The full peer ID.
    public var id: String
    /// The short peer ID.
    public var shortID: String
    /// Where it listens when we dialed it; the host alone when it dialed us (the port of an inbound connection is
    /// not one it listens on); the last one seen for a peer without a session.
    @Nullable public var address: String?
    /// Whether it has a session now.
    public var session: SessionState
    /// When it was last heard from (Unix time): for a peer with a session, its last frame (a live peer answers every
    /// keepalive ping), else when its session ended.
    public var lastSeen: Int64
    /// How many keepalive intervals in a row the peer of a session that is up has not answered (0 when it is
    /// answering, or without a session); the session is dropped after three.
    public var missedKeepalives: Int64
    /// Whether it is paired, and the pairing in progress.
    public var trust: TrustInfo

    /// A peer.
    public init(
        name: String, announcedName: String?, id: String, shortID: String, address: String?, session: SessionState,
        lastSeen: Int64, trust: TrustInfo, missedKeepalives: Int64 = 0
    ) {
        self.name = name
        self.announcedName = announcedName
        self.id = id
        self.shortID = shortID
        self.address = address
        self.session = session
        self.lastSeen = lastSeen
        self.trust = trust
        self.missedKeepalives = missedKeepalives
    }
}

/// A peer's `trust` in `peers` and `pair`.
public struct TrustInfo: Codable, Sendable, Equatable {
    /// Paired or not.
    public var state: PeerTrust
    /// When it was paired (Unix time).
    @Nullable public var pairedAt: Int64?
    /// Where the pairing attempt stands.
    public var pairing: PairingPhase
    /// The verification code while `pairing` is `code`.
    @Nullable public var code: String?
    /// When the attempt or the lock ends (Unix time).
    @Nullable public var until: Int64?
    /// Failed attempts counted toward the lock.
    public var failures: Int64

    /// A trust state.
    public init(
        state: PeerTrust, pairedAt: Int64?, pairing: PairingPhase, code: String?, until: Int64?, failures: Int64
    ) {
        self.state = state
        self.pairedAt = pairedAt
        self.pairing = pairing
        self.code = code
        self.until = until
        self.failures = failures
    }
}

/// A configured static peer (`peers`' `static`).
public struct StaticPeerInfo: Codable, Sendable, Equatable {
    /// `HOST:PORT`.
    public var address: String
    /// The peer ID expected there: configured, or pinned when first seen.
    @Nullable public var peerID: String?
    /// Where the expected peer ID comes from, if any.
    public var pin: StaticPin
    /// A different peer ID that was refused at the address.
    @Nullable public var refusedID: String?

    /// A static peer.
    public init(address: String, peerID: String?, pin: StaticPin, refusedID: String?) {
        self.address = address
        self.peerID = peerID
        self.pin = pin
        self.refusedID = refusedID
    }
}

/// A peer named by its name and IDs: `pair`'s `peer`, and the answer of `rename` (the name it is now shown under).
public struct PeerIdentity: Codable, Sendable, Equatable {
    /// The name it is shown under.
    public var name: String
    /// The full peer ID.
    public var id: String
    /// The short peer ID.
    public var shortID: String

    /// A peer.
    public init(name: String, id: String, shortID: String) {
        self.name = name
        self.id = id
        self.shortID = shortID
    }
}

/// The answer of `pair`.
public struct PairingInfo: Codable, Sendable, Equatable {
    /// This side's short ID, which the peer's user names (`interpay pair ME`).
    public struct Me: Codable, Sendable, Equatable {
        /// The short peer ID.
        public var shortID: String

        /// This side.
        public init(shortID: String) {
            self.shortID = shortID
        }
    }

    /// The peer.
    public var peer: PeerIdentity
    /// Its trust and the pairing in progress.
    public var trust: TrustInfo
    /// This side, when an attempt was started (left out when a code was confirmed).
    public var me: Me?

    /// A pairing answer.
    public init(peer: PeerIdentity, trust: TrustInfo, me: Me?) {
        self.peer = peer
        self.trust = trust
        self.me = me
    }
}

/// The answer of `untrust`.
public struct UntrustInfo: Codable, Sendable, Equatable {
    /// The full peer ID.
    public var id: String
    /// The short peer ID.
    public var shortID: String
    /// Whether a pairing was forgotten.
    public var untrusted: Bool
    /// The static peer addresses its key is no longer pinned at.
    public var unpinned: [String]

    /// An answer.
    public init(id: String, shortID: String, untrusted: Bool, unpinned: [String]) {
        self.id = id
        self.shortID = shortID
        self.untrusted = untrusted
        self.unpinned = unpinned
    }
}

/// Whether a peer has a session now: `up` or `down`.
public enum SessionState: String, ControlChoice {
    /// A session is up.
    case up
    /// No session.
    case down
}

/// Where a static peer address's expected peer ID comes from: `configured`, `first-seen` or `none`.
public enum StaticPin: String, ControlChoice {
    /// Given in the configuration.
    case configured
    /// Pinned when a key was first seen there.
    case firstSeen = "first-seen"
    /// None yet: the first key seen there will be pinned.
    case none
}
