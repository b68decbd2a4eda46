import InterPayCore

/// One event of the daemon's feed (`subscribe`: `interpay watch`, the web app's `/api/events`): what the daemon
/// publishes and what the CLI reads, one type on both sides.
///
/// On the wire each is one JSON object: `event` (its kind), `at` (Unix time) and the kind's own members, as
/// docs/control-api.md ("Events") lists them; the golden tests pin every kind's form.
public struct ControlEvent: Codable, Sendable, Equatable {
    /// When it happened (Unix time).
    public var at: Int64
    /// What happened.
    public var kind: Kind

    /// What happened, with what the event carries.
    public enum Kind: Sendable, Equatable {
        /// A peer asks this daemon to pay.
        case requestReceived(PaymentInfo)
        /// A payment changed state.
        case paymentUpdated(PaymentInfo)
        /// A subscription changed.
        case seriesUpdated(SeriesInfo)
        /// A share of one of this daemon's split bills changed: the bill as it is now.
        case billUpdated(BillInfo)
        /// A session with a peer came up.
        case peerUp(EventPeer)
        /// A session with a peer ended.
        case peerDown(EventPeer)
        /// A peer asks to pair; `message` says what to run.
        case pairingRequested(EventPeer, message: String)
        /// A pairing attempt began.
        case pairingStarted(EventPeer, attempt: String)
        /// The verification code to compare with the peer's, valid until `expiresAt` (Unix time).
        case pairingCode(EventPeer, code: String, expiresAt: Int64)
        /// The peer is paired.
        case paired(EventPeer)
        /// A pairing attempt failed; `attemptsLeft` more before the lock.
        case pairingFailed(EventPeer, reason: String, failures: Int64, attemptsLeft: Int64)
        /// Pairing with the peer is locked until `lockedUntil` (Unix time).
        case pairingLocked(EventPeer, lockedUntil: Int64)

        /// The `event` member.
        public var name: String {
            switch self {
            case .requestReceived: "request-received"
            case .paymentUpdated: "payment-updated"
            case .seriesUpdated: "series-updated"
            case .billUpdated: "bill-updated"
            case .peerUp: "peer-up"
            case .peerDown: "peer-down"
            case .pairingRequested: "pairing-requested"
            case .pairingStarted: "pairing-started"
            case .pairingCode: "pairing-code"
            case .paired: "paired"
            case .pairingFailed: "pairing-failed"
            case .pairingLocked: "pairing-locked"
            }
        }
    }

    /// The peer of a session or pairing event, as every view names a peer (`PeerLabel`).
    public struct EventPeer: Codable, Sendable, Equatable {
        /// Its name: the kept one when paired, else what it announced.
        public var name: String
        /// Its full ID.
        public var id: String
        /// Its short ID.
        public var shortID: String
        /// `paired` or `unverified`.
        public var trust: PeerTrust
        /// Where the session is (`peer-up`, `peer-down`); absent otherwise.
        public var address: String?

        /// A peer.
        public init(name: String, id: String, shortID: String, trust: PeerTrust, address: String? = nil) {
            self.name = name
            self.id = id
            self.shortID = shortID
            self.trust = trust
            self.address = address
        }

        /// The label every view shows (`PeerLabel`); a short ID that is not one is shown as `?`.
        public var label: String {
            PeerLabel.text(name: name, shortID: shortIDShown, paired: trust == .paired)
        }

        /// The short ID when it is one (it goes into commands to paste), else `?`.
        public var shortIDShown: String { PeerID.isShortID(shortID) ? shortID : "?" }
    }

    /// An event at `at`.
    public init(at: Int64, _ kind: Kind) {
        self.at = at
        self.kind = kind
    }

    private enum CodingKeys: String, CodingKey {
        case event, at, payment, series, bill, peer, message, attempt, code, expiresAt, reason, failures, attemptsLeft
        case lockedUntil
    }

    /// Reads an event; a kind this version does not know is a `DecodingError` (the CLI prints such an event as JSON).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        at = try container.decode(Int64.self, forKey: .at)
        let name = try container.decode(String.self, forKey: .event)
        func peer() throws -> EventPeer { try container.decode(EventPeer.self, forKey: .peer) }
        switch name {
        case "request-received": kind = .requestReceived(try container.decode(PaymentInfo.self, forKey: .payment))
        case "payment-updated": kind = .paymentUpdated(try container.decode(PaymentInfo.self, forKey: .payment))
        case "series-updated": kind = .seriesUpdated(try container.decode(SeriesInfo.self, forKey: .series))
        case "bill-updated": kind = .billUpdated(try container.decode(BillInfo.self, forKey: .bill))
        case "peer-up": kind = .peerUp(try peer())
        case "peer-down": kind = .peerDown(try peer())
        case "pairing-requested":
            kind = .pairingRequested(try peer(), message: try container.decode(String.self, forKey: .message))
        case "pairing-started":
            kind = .pairingStarted(try peer(), attempt: try container.decode(String.self, forKey: .attempt))
        case "pairing-code":
            kind = .pairingCode(
                try peer(), code: try container.decode(String.self, forKey: .code),
                expiresAt: try container.decode(Int64.self, forKey: .expiresAt))
        case "paired": kind = .paired(try peer())
        case "pairing-failed":
            kind = .pairingFailed(
                try peer(), reason: try container.decode(String.self, forKey: .reason),
                failures: try container.decode(Int64.self, forKey: .failures),
                attemptsLeft: try container.decode(Int64.self, forKey: .attemptsLeft))
        case "pairing-locked":
            kind = .pairingLocked(try peer(), lockedUntil: try container.decode(Int64.self, forKey: .lockedUntil))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .event, in: container, debugDescription: "an event this version does not know: \(name)")
        }
    }

    /// Writes `{event, at, …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.name, forKey: .event)
        try container.encode(at, forKey: .at)
        switch kind {
        case .requestReceived(let payment), .paymentUpdated(let payment):
            try container.encode(payment, forKey: .payment)
        case .seriesUpdated(let series):
            try container.encode(series, forKey: .series)
        case .billUpdated(let bill):
            try container.encode(bill, forKey: .bill)
        case .peerUp(let peer), .peerDown(let peer), .paired(let peer):
            try container.encode(peer, forKey: .peer)
        case .pairingRequested(let peer, let message):
            try container.encode(peer, forKey: .peer)
            try container.encode(message, forKey: .message)
        case .pairingStarted(let peer, let attempt):
            try container.encode(peer, forKey: .peer)
            try container.encode(attempt, forKey: .attempt)
        case .pairingCode(let peer, let code, let expiresAt):
            try container.encode(peer, forKey: .peer)
            try container.encode(code, forKey: .code)
            try container.encode(expiresAt, forKey: .expiresAt)
        case .pairingFailed(let peer, let reason, let failures, let attemptsLeft):
            try container.encode(peer, forKey: .peer)
            try container.encode(reason, forKey: .reason)
            try container.encode(failures, forKey: .failures)
            try container.encode(attemptsLeft, forKey: .attemptsLeft)
        case .pairingLocked(let peer, let lockedUntil):
            try container.encode(peer, forKey: .peer)
            try container.encode(lockedUntil, forKey: .lockedUntil)
        }
    }
}

/// Whether a peer is paired (its key checked with a code) or only announced itself: `paired` or `unverified`.
public enum PeerTrust: String, ControlChoice {
    /// Paired: its key was checked with a verification code.
    case paired
    /// Not paired: its name is only what it says.
    case unverified
}
