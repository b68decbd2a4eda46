import Foundation
import InterPayCore

/// Representative inputs, built before measurement starts.
enum Samples {
    static let payee = PeerID(subjectPublicKeyInfoDER: Array("payee".utf8))
    static let payer = PeerID(subjectPublicKeyInfoDER: Array("payer".utf8))
    static let messageID = uuid(2)
    static let createdAt = Timestamp(secondsSince1970: 1_795_000_000)
    static let expiresAt = Timestamp(secondsSince1970: 1_795_000_900)
    /// A moment before `expiresAt`, so nothing expires during the lifecycle benchmarks.
    static let now = Timestamp(secondsSince1970: 1_795_000_100)

    /// A typical request: an MXN amount with memo and category.
    static func payment() throws -> PaymentRequest {
        try PaymentRequest(
            id: uuid(1), payee: payee, payer: payer, amount: Money(parsing: "12.50", currencyCode: "MXN"),
            memo: "lunch at the taquería", category: "food", createdAt: createdAt, expiresAt: expiresAt)
    }

    /// The `request` frame for `payment()`.
    static func requestFrame() throws -> PaymentMessage {
        .request(.init(messageID: messageID, payment: try payment()))
    }

    /// The payee's `ack` of an `accept`.
    static func ackFrame() throws -> PaymentMessage {
        .ack(.init(ackedID: messageID, paymentID: try payment().id, state: .accepted, reasonCode: nil))
    }

    /// A keep-alive `ping`.
    static let pingFrame = PaymentMessage.ping(nonce: 1_234_567_890)

    /// A UUID whose last byte is `n`.
    static func uuid(_ n: UInt8) -> UUID {
        UUID(uuid: (0x6f, 0x1c, 0x0e, 0x7a, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n))
    }
}
