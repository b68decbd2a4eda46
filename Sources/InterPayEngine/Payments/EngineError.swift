public import InterPayCore

/// Why a payment command failed; each maps to a JSON-RPC error and a CLI exit code.
public enum EngineError: Error, Sendable, CustomStringConvertible {
    /// No `kind` (payment, peer or series) matches `text`.
    case notFound(kind: String, text: String)
    /// More than one payment or peer matches; the candidates are listed.
    case ambiguous(String, candidates: [String])
    /// The payment is already final (or awaiting the payee); the action lost. `state`, when known, is the state it
    /// is in now: a decision on a payment since paid or settled loses with `ALAC` (the protocol's one code for all
    /// three), and the message names where it is.
    case conflict(ReasonCode, state: PaymentState? = nil)
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
    /// A subscription offer from a peer that is not paired, approved without naming the peer (S-IMPOSTOR).
    case unpairedOffer(PeerID)
    /// A series' cap or total (`field`) not above zero or not in the series' currency.
    case seriesAmount(field: String, currency: CurrencyCode)
    /// A reason or reference (`field`) longer than `max` code points or holding a control character.
    case textRefused(field: String, max: Int)

    public var description: String {
        switch self {
        case .notFound(let kind, let text): "\(kind) '\(text)' not found"
        case .ambiguous(let what, let candidates):
            "'\(what)' is ambiguous; it matches:\n  \(candidates.joined(separator: "\n  "))"
        case .conflict(let reason, let state):
            if let state, state != reason.state {
                "the payment was already \(state.rawValue) (\(reason.rawValue))"
            } else {
                "the payment was \(reason) (\(reason.rawValue))"
            }
        case .notPermitted(let reason): reason
        case .peerUnreachable(let peer): Self.unreachable(peer.shortDescription)
        case .invalid(let reason): reason
        case .storage(let reason): "ledger error: \(reason)"
        case .alreadySettling(let reason): reason
        case .keyReused(let key):
            "the idempotency key '\(key)' was used in the last 24 hours for a different request; nothing was sent"
        case .unpairedOffer(let peer):
            "the offer comes from \(peer.shortDescription), a peer that is not paired (unverified):"
                + " pair with it first, or approve with --peer \(peer.shortDescription) if you know it is who you mean"
        case .seriesAmount(let field, let currency):
            "the \(field) must be more than zero, in the series' currency (\(currency.code))"
        case .textRefused(let field, let max):
            field == "reference"
                ? "the reference must be 1 to \(max) characters without control characters"
                : "a \(field) is at most \(max) characters, without control characters"
        }
    }

    /// The text of `peerUnreachable` for a peer shown as `label`.
    public static func unreachable(_ label: String) -> String {
        "no session with \(label): the peer is not reachable right now"
    }
}
