public import FoundationEssentials

extension PaymentMessage {
    /// The hello capability of daemons that speak settlement (`paid`, `settle`) and receipts (PROTOCOL.md §8.5).
    /// Neither frame is sent on a session with a peer that lacks it; decisions need no capability.
    public static let receiptsCapability = "receipts"

    /// The `paid` frame: the payer says it handed the money over (payer → payee).
    public struct Paid: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        @WireUUID public private(set) var messageID: UUID
        /// The payment paid.
        @WireUUID public private(set) var paymentID: UUID
        /// How the money was handed over, if the payer said.
        public let method: PaymentMethod?
        /// The payer's reference for it (a transfer number, a card slip…), at most `Limits.maxReferenceLength`
        /// code points.
        @WireText<Limits.ReferenceText> public private(set) var reference: String?

        /// Builds the frame body.
        public init(messageID: UUID, paymentID: UUID, method: PaymentMethod?, reference: String?) {
            self.messageID = messageID
            self.paymentID = paymentID
            self.method = method
            self.reference = reference
        }
    }

    /// The `settle` frame: the payee confirms the money arrived (payee → payer), with its signed receipt.
    public struct Settle: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        @WireUUID public private(set) var messageID: UUID
        /// The payment settled.
        @WireUUID public private(set) var paymentID: UUID
        /// The signed receipt, as its canonical text (`Receipt`), exactly the bytes the payee signed; absent when
        /// the payee could not make one.
        @WireText<Limits.ReceiptText> public private(set) var receipt: String?

        /// Builds the frame body.
        public init(messageID: UUID, paymentID: UUID, receipt: String?) {
            self.messageID = messageID
            self.paymentID = paymentID
            self.receipt = receipt
        }
    }
}
