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

    /// Whether no further transition can happen (every state but `pending`).
    public var isFinal: Bool { self != .pending }

    /// The reason code that a later, conflicting action receives when the payment already is in this state.
    public var conflictReason: ReasonCode? {
        switch self {
        case .pending: nil
        case .accepted: .alreadyAccepted
        case .rejected: .alreadyRejected
        case .cancelled: .alreadyCancelled
        case .expired: .alreadyExpired
        }
    }
}
