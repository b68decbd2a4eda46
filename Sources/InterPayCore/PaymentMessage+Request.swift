public import FoundationEssentials

extension PaymentMessage {
    /// The `request` frame: a new payment request, payee → payer.
    public struct Request: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        public let messageID: UUID
        /// The request itself.
        public let payment: PaymentRequest

        /// Wraps a payment in a frame with its own message ID.
        public init(messageID: UUID, payment: PaymentRequest) {
            self.messageID = messageID
            self.payment = payment
        }

        private enum CodingKeys: String, CodingKey {
            case messageID, payment
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(messageID.wireString, forKey: .messageID)
            try container.encode(payment, forKey: .payment)
        }
    }

    /// The `cancel` and `accept` frames: a decision about one payment.
    public struct Decision: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        public let messageID: UUID
        /// The payment decided on.
        public let paymentID: UUID

        /// Builds the frame body.
        public init(messageID: UUID, paymentID: UUID) {
            self.messageID = messageID
            self.paymentID = paymentID
        }

        private enum CodingKeys: String, CodingKey {
            case messageID, paymentID
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(messageID.wireString, forKey: .messageID)
            try container.encode(paymentID.wireString, forKey: .paymentID)
        }
    }

    /// The `reject` frame: the payer declines, optionally saying why.
    public struct Rejection: Sendable, Hashable, Codable {
        /// Identifies this frame for acks and duplicate detection.
        public let messageID: UUID
        /// The payment rejected.
        public let paymentID: UUID
        /// Free text from the payer, at most `Limits.maxReasonLength` code points.
        public let reason: String?

        /// Builds the frame body.
        public init(messageID: UUID, paymentID: UUID, reason: String?) {
            self.messageID = messageID
            self.paymentID = paymentID
            self.reason = reason
        }

        private enum CodingKeys: String, CodingKey {
            case messageID, paymentID, reason
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.messageID = try container.decodeWireUUID(forKey: .messageID)
            self.paymentID = try container.decodeWireUUID(forKey: .paymentID)
            self.reason = try container.decodeTextIfPresent(forKey: .reason, length: 0...Limits.maxReasonLength)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(messageID.wireString, forKey: .messageID)
            try container.encode(paymentID.wireString, forKey: .paymentID)
            try container.encodeIfPresent(reason, forKey: .reason)
        }
    }

    /// The `ack` frame: the sender committed the frame `ackedID` and reports its resulting state.
    public struct Acknowledgement: Sendable, Hashable, Codable {
        /// The `messageID` of the frame acknowledged.
        public let ackedID: UUID
        /// The payment concerned.
        public let paymentID: UUID
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

        private enum CodingKeys: String, CodingKey {
            case ackedID, paymentID, state, reasonCode
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ackedID.wireString, forKey: .ackedID)
            try container.encode(paymentID.wireString, forKey: .paymentID)
            try container.encode(state, forKey: .state)
            try container.encodeIfPresent(reasonCode, forKey: .reasonCode)
        }
    }
}
