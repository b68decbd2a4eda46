import Foundation
import InterPayCore

/// Values shared by the core tests.
enum Fixtures {
    static let payee = PeerID(subjectPublicKeyInfoDER: Array("payee".utf8))
    static let payer = PeerID(subjectPublicKeyInfoDER: Array("payer".utf8))

    static func payment(expiresAt: Timestamp, memo: String = "lunch", category: String? = "food") throws
        -> PaymentRequest
    {
        try PaymentRequest(
            id: UUID(uuidString: "0d8a3c52-8b4f-4c38-9f0e-3f3c2b1a0001")!, payee: payee, payer: payer,
            amount: Money(parsing: "12.50", currencyCode: "MXN"), memo: memo, category: category,
            createdAt: Timestamp(secondsSince1970: 0), expiresAt: expiresAt)
    }
}
