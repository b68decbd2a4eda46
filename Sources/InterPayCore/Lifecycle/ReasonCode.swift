/// Why an action on a payment lost: the payment was already final. Modelled on the ISO 20022
/// Request-to-Pay reason codes.
public enum ReasonCode: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// ALAC: the payment was already accepted.
    case alreadyAccepted = "ALAC"
    /// ACLR: the payment was already cancelled by the payee.
    case alreadyCancelled = "ACLR"
    /// ARFR: the payment was already rejected by the payer.
    case alreadyRejected = "ARFR"
    /// AEXR: the payment had already expired.
    case alreadyExpired = "AEXR"

    /// The state this reason reports.
    public var state: PaymentState {
        switch self {
        case .alreadyAccepted: .accepted
        case .alreadyCancelled: .cancelled
        case .alreadyRejected: .rejected
        case .alreadyExpired: .expired
        }
    }

    public var description: String {
        switch self {
        case .alreadyAccepted: "already accepted"
        case .alreadyCancelled: "already cancelled"
        case .alreadyRejected: "already rejected"
        case .alreadyExpired: "already expired"
        }
    }
}
