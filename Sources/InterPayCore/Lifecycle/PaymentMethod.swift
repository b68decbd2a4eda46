/// How the payer says the money was handed over, outside InterPay: InterPay records it, it moves nothing.
public enum PaymentMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// Cash handed over.
    case cash
    /// A card payment.
    case card
    /// A bank transfer.
    case transfer
    /// Any other way.
    case other
}
