public import FoundationEssentials

extension PaymentMessage {
    /// The `request` frame: a new payment request, payee → payer.
    public struct Request: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        @WireUUID public private(set) var messageID: UUID
        /// The request itself.
        public let payment: PaymentRequest

        /// Wraps a payment in a frame with its own message ID.
        public init(messageID: UUID, payment: PaymentRequest) {
            self.messageID = messageID
            self.payment = payment
        }
    }

    /// The `cancel` and `accept` frames: a decision about one payment.
    public struct Decision: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        @WireUUID public private(set) var messageID: UUID
        /// The payment decided on.
        @WireUUID public private(set) var paymentID: UUID

        /// Builds the frame body.
        public init(messageID: UUID, paymentID: UUID) {
            self.messageID = messageID
            self.paymentID = paymentID
        }
    }

    /// The `reject` frame: the payer declines, optionally saying why.
    public struct Rejection: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        @WireUUID public private(set) var messageID: UUID
        /// The payment rejected.
        @WireUUID public private(set) var paymentID: UUID
        /// Free text from the payer, at most `Limits.maxReasonLength` code points.
        @WireText<Limits.ReasonText> public private(set) var reason: String?

        /// Builds the frame body.
        public init(messageID: UUID, paymentID: UUID, reason: String?) {
            self.messageID = messageID
            self.paymentID = paymentID
            self.reason = reason
        }
    }

    /// The `ack` frame: the sender committed the frame `ackedID` and reports its resulting state.
    public struct Acknowledgement: Sendable, Hashable, Codable {
        /// The `messageID` of the frame acknowledged.
        @WireUUID public private(set) var ackedID: UUID
        /// The payment concerned.
        @WireUUID public private(set) var paymentID: UUID
        /// The sender's state of the payment after processing the frame.
        public let state: PaymentState
        /// Present when the acknowledged action lost (the payment was already final).
        public let reasonCode: ReasonCode?

        /// Builds the frame body.
        public init(ackedID: UUID, paymentID: UUID, state: PaymentState, reasonCode: ReasonCode?) {
            self.ackedID = ackedID
            self.paymentID = paymentID
            self.state = state
            self.reasonCode = reasonCode
        }
    }
}
