import Foundation
import InterPayCore

/// Values shared by the core tests.
enum Fixtures {
    static let payee = PeerID(subjectPublicKeyInfoDER: Array("payee".utf8))
    static let payer = PeerID(subjectPublicKeyInfoDER: Array("payer".utf8))

    static func payment(
        expiresAt: Timestamp, memo: String = "lunch", category: String? = "food"
    ) throws
        -> PaymentRequest
    {
        try PaymentRequest(
            id: fixedUUID(1), payee: payee, payer: payer,
            amount: Money(parsing: "12.50", currencyCode: "MXN"), memo: memo, category: category,
            createdAt: Timestamp(secondsSince1970: 0), expiresAt: expiresAt)
    }

    /// A UUID whose last byte is `n`: stable test values without force unwraps.
    static func fixedUUID(_ n: UInt8) -> UUID {
        UUID(uuid: (0x6f, 0x1c, 0x0e, 0x7a, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n))
    }
}
