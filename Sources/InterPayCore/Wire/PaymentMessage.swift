public import FoundationEssentials

/// One frame of the InterPay peer protocol, version 1 (see `protocol/PROTOCOL.md`).
///
/// On the wire every frame is a JSON object whose `type` names the case and whose other members are the case's
/// fields. Every frame that changes a payment's state carries its own `messageID`, so that a resent frame is
/// recognised and answered again without changing anything.
public enum PaymentMessage: Sendable, Hashable {
    /// First frame in both directions: versions, capabilities, display name.
    case hello(Hello)
    /// Payee → payer: a new payment request.
    case request(Request)
    /// Payee → payer: the payee withdraws a pending request.
    case cancel(Decision)
    /// Payer → payee: the payer agrees to pay.
    case accept(Decision)
    /// Payer → payee: the payer declines.
    case reject(Rejection)
    /// Either way: a state-changing frame was committed; carries the sender's resulting state.
    case ack(Acknowledgement)
    /// Either way: something was wrong with a frame or the session.
    case error(ErrorFrame)
    /// Keepalive probe; answered with `pong` carrying the same nonce.
    case ping(nonce: UInt64)
    /// Answer to `ping`.
    case pong(nonce: UInt64)
    /// The sender is about to close the session (e.g. shutting down).
    case close(reason: String)
    /// Either way: one step of pairing with a verification code.
    case pair(Pairing)
    /// Payer → payee: the payer says it handed the money over.
    case paid(Paid)
    /// Payee → payer: the payee confirms the money arrived, with its signed receipt.
    case settle(Settle)
    /// Either way: one step of a subscription series (offer, approve, decline, end, or its ack).
    case series(Series)
    /// Payee → payer: the payee gave back all or part of an accepted payment.
    case refund(Refund)

    /// The wire name of the frame's type.
    public var type: FrameType {
        switch self {
        case .hello: .hello
        case .request: .request
        case .cancel: .cancel
        case .accept: .accept
        case .reject: .reject
        case .ack: .ack
        case .error: .error
        case .ping: .ping
        case .pong: .pong
        case .close: .close
        case .pair: .pair
        case .paid: .paid
        case .settle: .settle
        case .series: .series
        case .refund: .refund
        }
    }

    /// The message ID of a state-changing frame (`request`, `cancel`, `accept`, `reject`, `paid`, `settle`,
    /// `refund`, and `series` but its `ack`), else nil.
    public var messageID: UUID? {
        switch self {
        case .request(let request): request.messageID
        case .paid(let paid): paid.messageID
        case .settle(let settle): settle.messageID
        case .refund(let refund): refund.messageID
        case .series(let series): series.action == .ack ? nil : series.messageID
        case .cancel(let decision), .accept(let decision): decision.messageID
        case .reject(let rejection): rejection.messageID
        case .hello, .ack, .error, .ping, .pong, .close, .pair: nil
        }
    }

    /// The payment a frame concerns, if any.
    public var paymentID: UUID? {
        switch self {
        case .request(let request): request.payment.id
        case .paid(let paid): paid.paymentID
        case .settle(let settle): settle.paymentID
        case .refund(let refund): refund.paymentID
        case .cancel(let decision), .accept(let decision): decision.paymentID
        case .reject(let rejection): rejection.paymentID
        case .ack(let ack): ack.paymentID
        case .hello, .error, .ping, .pong, .close, .pair, .series: nil
        }
    }

    /// The wire names of the frame types of protocol version 1.
    public enum FrameType: String, Sendable, Hashable, CaseIterable, Codable {
        case hello, request, cancel, accept, reject, ack, error, ping, pong, close, pair, paid, settle, series, refund
    }
}

extension PaymentMessage: Codable {
    private enum TypeKey: String, CodingKey {
        case type
    }

    private enum NonceKey: String, CodingKey {
        case nonce
    }

    private enum ReasonKey: String, CodingKey {
        case reason
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        // A `type` that is absent or not a string leaves the frame without a type.
        guard let name = try? container.decode(String.self, forKey: .type) else {
            throw FrameError.missingField("type")
        }
        guard let type = FrameType(rawValue: name) else { throw FrameError.unknownType(name) }
        switch type {
        case .hello: self = .hello(try Hello(from: decoder))
        case .request: self = .request(try Request(from: decoder))
        case .cancel: self = .cancel(try Decision(from: decoder))
        case .accept: self = .accept(try Decision(from: decoder))
        case .reject: self = .reject(try Rejection(from: decoder))
        case .ack: self = .ack(try Acknowledgement(from: decoder))
        case .error: self = .error(try ErrorFrame(from: decoder))
        case .ping:
            self = .ping(nonce: try decoder.container(keyedBy: NonceKey.self).decodeNonce(forKey: .nonce))
        case .pong:
            self = .pong(nonce: try decoder.container(keyedBy: NonceKey.self).decodeNonce(forKey: .nonce))
        case .close:
            self = .close(
                reason: try decoder.container(keyedBy: ReasonKey.self)
                    .decodeText(forKey: .reason, length: 0...Limits.maxReasonLength))
        case .pair: self = .pair(try Pairing(from: decoder))
        case .paid: self = .paid(try Paid(from: decoder))
        case .settle: self = .settle(try Settle(from: decoder))
        case .series: self = .series(try Series(from: decoder))
        case .refund: self = .refund(try Refund(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type.rawValue, forKey: .type)
        switch self {
        case .hello(let hello): try hello.encode(to: encoder)
        case .request(let request): try request.encode(to: encoder)
        case .cancel(let decision), .accept(let decision): try decision.encode(to: encoder)
        case .reject(let rejection): try rejection.encode(to: encoder)
        case .ack(let ack): try ack.encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        case .ping(let nonce), .pong(let nonce):
            var nonceContainer = encoder.container(keyedBy: NonceKey.self)
            try nonceContainer.encode(nonce, forKey: .nonce)
        case .close(let reason):
            var reasonContainer = encoder.container(keyedBy: ReasonKey.self)
            try reasonContainer.encode(reason, forKey: .reason)
        case .pair(let pairing): try pairing.encode(to: encoder)
        case .paid(let paid): try paid.encode(to: encoder)
        case .settle(let settle): try settle.encode(to: encoder)
        case .series(let series): try series.encode(to: encoder)
        case .refund(let refund): try refund.encode(to: encoder)
        }
    }
}
