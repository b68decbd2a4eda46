public import FoundationEssentials

extension PaymentMessage {
    /// The hello capability of daemons that speak refunds (`refund` frames; PROTOCOL.md §7.12, §8.7). No `refund`
    /// goes to a peer that lacks it.
    public static let refundsCapability = "refunds"

    /// The `refund` frame: the payee of an accepted payment gave back all or part of it (payee → payer).
    ///
    /// A refund is a payment of its own (`paymentID`) in the other direction, linked to the original by `refundOf`,
    /// and settled when it is sent: nobody refuses money given back (PROTOCOL.md §8.7).
    public struct Refund: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        @WireUUID public private(set) var messageID: UUID
        /// The refund's own payment ID, chosen by the refunding payee.
        @WireUUID public private(set) var paymentID: UUID
        /// The payment refunded, of which the sender is the payee; never `paymentID`.
        @WireUUID public private(set) var refundOf: UUID
        /// How much is given back, in the original's currency.
        public let amount: Money
        /// Why, at most `Limits.maxMemoLength` code points (may be empty).
        public let memo: String
        /// When the refund was given, on the payee's clock.
        public let createdAt: Timestamp
        /// The payee's signed refund receipt (`Receipt` of kind refund) as its canonical text, if it made one.
        @WireText<Limits.ReceiptText> public private(set) var receipt: String?

        private enum CodingKeys: String, CodingKey {
            case messageID, paymentID, refundOf, amount, memo, createdAt, receipt
        }

        /// Builds the frame body.
        public init(
            messageID: UUID, paymentID: UUID, refundOf: UUID, amount: Money, memo: String, createdAt: Timestamp,
            receipt: String?
        ) {
            self.messageID = messageID
            self.paymentID = paymentID
            self.refundOf = refundOf
            self.amount = amount
            self.memo = memo
            self.createdAt = createdAt
            self.receipt = receipt
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let messageID = try container.decodeWireUUID(forKey: .messageID)
            let paymentID = try container.decodeWireUUID(forKey: .paymentID)
            let refundOf = try container.decodeWireUUID(forKey: .refundOf)
            guard refundOf != paymentID else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath + [CodingKeys.refundOf],
                        debugDescription: "a refund cannot refund itself"))
            }
            let amount = try container.decode(Money.self, forKey: .amount)
            guard amount.minorUnits > 0 else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath + [CodingKeys.amount], debugDescription: "must be positive"))
            }
            self.init(
                messageID: messageID, paymentID: paymentID, refundOf: refundOf, amount: amount,
                memo: try container.decodeText(forKey: .memo, length: 0...Limits.maxMemoLength),
                createdAt: try container.decode(Timestamp.self, forKey: .createdAt),
                receipt: try container.decode(WireText<Limits.ReceiptText>.self, forKey: .receipt).wrappedValue)
        }
    }
}
