/// Which side of a payment request this daemon is on.
public enum PaymentRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Asked for the money: created the request, may cancel it, and is authoritative for its final state.
    case payee
    /// Was asked to pay: accepts or rejects.
    case payer
}
