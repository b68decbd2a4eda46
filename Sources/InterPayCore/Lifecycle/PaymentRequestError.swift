/// A rule of `PaymentRequest` that a value broke.
public enum PaymentRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Payee and payer are the same peer.
    case samePeer
    /// The amount is zero or negative.
    case amountNotPositive
    /// The memo is longer than `Limits.maxMemoLength` code points (the length is given).
    case memoTooLong(Int)
    /// The category is empty or longer than `Limits.maxCategoryLength` code points.
    case invalidCategory(String)
    /// `expiresAt` is not after `createdAt`.
    case expiresBeforeCreated
    /// The memo or category (`field`) holds a control character (`SafeText`).
    case controlCharacter(field: String, Unicode.Scalar)

    public var description: String {
        switch self {
        case .samePeer: "payee and payer must be different peers"
        case .amountNotPositive: "the amount must be greater than zero"
        case .memoTooLong(let length):
            "the memo has \(length) code points, at most \(Limits.maxMemoLength) are allowed"
        case .invalidCategory(let category):
            "the category '\(SafeText.escaped(category))' must have 1 to \(Limits.maxCategoryLength) code points"
        case .controlCharacter(let field, let scalar):
            "the \(field) holds the control character \(SafeText.describe(scalar)), which is not allowed"
        case .expiresBeforeCreated: "the request must expire after it was created"
        }
    }
}
