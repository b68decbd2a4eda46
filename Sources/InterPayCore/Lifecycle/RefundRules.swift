/// The rules of refunds (PROTOCOL.md §8.7), decided without I/O: whether a refund of a payment may be given (the
/// payee's command, F1–F4) or taken (a payer receiving a `refund` frame, F5–F9).
///
/// A refund never changes the refunded payment's state; what is left to refund is its amount less the refunds it
/// carries, and it carries at most `maxRefunds`.
public enum RefundRules {
    /// The most refunds one payment carries.
    public static let maxRefunds = 16

    /// What a side knows of the payment refunded, from its own ledger.
    public struct Original: Sendable, Hashable {
        /// This side's role in the payment refunded: the payee gives refunds, the payer takes them.
        public var role: PaymentRole
        /// This side's state of it.
        public var state: PaymentState
        /// Its amount.
        public var amount: Money
        /// The sum of the refunds it carries, in minor units of its currency.
        public var refundedMinor: Int64
        /// How many refunds it carries.
        public var refunds: Int

        /// Describes a payment and its refunds so far.
        public init(role: PaymentRole, state: PaymentState, amount: Money, refundedMinor: Int64, refunds: Int) {
            self.role = role
            self.state = state
            self.amount = amount
            self.refundedMinor = refundedMinor
            self.refunds = refunds
        }

        /// What is left to refund (zero when all of it was).
        public var left: Money {
            Money(minorUnits: max(0, amount.minorUnits - refundedMinor), currency: amount.currency)
        }
    }

    /// Why a refund may not be given or taken.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// This side is not the payment's payee (giving) or payer (taking).
        case wrongRole(PaymentRole)
        /// The payment was never accepted: nothing was paid that could be given back.
        case notAccepted(PaymentState)
        /// The refund is not in the payment's currency.
        case otherCurrency(expected: CurrencyCode)
        /// The refund is more than what is left to refund.
        case exceedsLeft(left: Money)
        /// The payment carries `maxRefunds` refunds already.
        case tooMany

        public var description: String {
            switch self {
            case .wrongRole(.payer): "only the payee of a payment gives refunds of it"
            case .wrongRole(.payee): "only the payer of a payment gets refunds of it"
            case .notAccepted(let state):
                "the payment is \(state.rawValue): it was never accepted, so nothing can be given back"
            case .otherCurrency(let expected): "a refund is in the payment's currency, \(expected.code)"
            case .exceedsLeft(let left):
                left.minorUnits == 0
                    ? "the payment was refunded in full already" : "only \(left) is left to refund"
            case .tooMany: "the payment carries \(RefundRules.maxRefunds) refunds already"
            }
        }
    }

    /// Whether the payee may give a refund of `amount` (F1–F3); nil when it may.
    public static func give(_ amount: Money, of original: Original) -> Refusal? {
        check(amount, of: original, side: .payee)
    }

    /// Whether the payer takes a refund of `amount` from the payment's payee (F5, F7, F8); nil when it does.
    public static func take(_ amount: Money, of original: Original) -> Refusal? {
        check(amount, of: original, side: .payer)
    }

    private static func check(_ amount: Money, of original: Original, side: PaymentRole) -> Refusal? {
        guard original.role == side else { return .wrongRole(original.role) }
        // The payer's own accept, not yet confirmed, counts: the payee accepted before it could refund (§8.7).
        guard original.state.isAccepted else { return .notAccepted(original.state) }
        guard amount.currency == original.amount.currency else {
            return .otherCurrency(expected: original.amount.currency)
        }
        guard original.refunds < maxRefunds else { return .tooMany }
        guard amount.minorUnits > 0, amount.minorUnits <= original.left.minorUnits else {
            return .exceedsLeft(left: original.left)
        }
        return nil
    }
}
