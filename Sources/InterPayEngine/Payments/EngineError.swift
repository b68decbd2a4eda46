public import InterPayCore

/// Why a payment command failed; each maps to a JSON-RPC error and a CLI exit code.
public enum EngineError: Error, Sendable, CustomStringConvertible {
    /// No payment or peer matches.
    case notFound(String)
    /// More than one payment or peer matches; the candidates are listed.
    case ambiguous(String, candidates: [String])
    /// The payment is already final (or awaiting the payee); the action lost.
    case conflict(ReasonCode)
    /// This side cannot do that to the payment.
    case notPermitted(String)
    /// No session with the peer: a request is not sent to a peer that cannot receive it. The peer, not its text:
    /// the control layer names it as every surface does (`PeerLabel`).
    case peerUnreachable(PeerID)
    /// The request itself is invalid (amount, memo, expiry).
    case invalid(String)
    /// The ledger failed.
    case storage(String)
    /// The payment is already paid or settled: marking it so again loses (exit 5, like a decision that lost).
    case alreadySettling(String)
    /// The idempotency key of a `send` was used in the last 24 hours for a different request.
    case keyReused(String)

    public var description: String {
        switch self {
        case .notFound(let what): "\(what) not found"
        case .ambiguous(let what, let candidates):
            "'\(what)' is ambiguous; it matches:\n  \(candidates.joined(separator: "\n  "))"
        case .conflict(let reason): "the payment was \(reason) (\(reason.rawValue))"
        case .notPermitted(let reason): reason
        case .peerUnreachable(let peer): Self.unreachable(peer.shortDescription)
        case .invalid(let reason): reason
        case .storage(let reason): "ledger error: \(reason)"
        case .alreadySettling(let reason): reason
        case .keyReused(let key):
            "the idempotency key '\(key)' was used in the last 24 hours for a different request; nothing was sent"
        }
    }

    /// The text of `peerUnreachable` for a peer shown as `label`.
    public static func unreachable(_ label: String) -> String {
        "no session with \(label): the peer is not reachable right now"
    }
}
