/// Where a payment request is in its lifecycle.
public enum PaymentState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Sent by the payee, not yet decided by the payer.
    case pending
    /// The payer agreed to pay.
    case accepted
    /// The payer declined.
    case rejected
    /// The payee withdrew the request before the payer decided.
    case cancelled
    /// Nobody decided before `expiresAt`.
    case expired
    /// Accepted, and the payer says the money was handed over (by cash, card, transfer, …); the payee has not
    /// confirmed it yet.
    case paid
    /// Accepted, and the payee confirmed that the money arrived; the payee signed a receipt.
    case settled

    /// Whether the payer's decision is behind the payment (every state but `pending`): no accept, reject, cancel or
    /// expiry can change it any more. An accepted or paid payment may still become settled.
    public var isFinal: Bool { self != .pending }

    /// The state as the decision protocol (request, accept, reject, cancel) knows it: `paid` and `settled` are
    /// `accepted`. Acknowledgements of decision frames carry this, so that a peer without the `receipts` capability
    /// never sees a state it cannot read.
    public var decisionState: PaymentState {
        switch self {
        case .paid, .settled: .accepted
        default: self
        }
    }

    /// Whether the payment was accepted (and possibly paid or settled since).
    public var isAccepted: Bool { decisionState == .accepted }

    /// The reason code that a later, conflicting action receives when the payment already is in this state.
    public var conflictReason: ReasonCode? {
        switch self {
        case .pending: nil
        case .accepted, .paid, .settled: .alreadyAccepted
        case .rejected: .alreadyRejected
        case .cancelled: .alreadyCancelled
        case .expired: .alreadyExpired
        }
    }
}
