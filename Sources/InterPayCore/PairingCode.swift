import Crypto
public import Foundation

/// The 6-digit verification code two peers derive when pairing: a short authentication string.
///
/// `code = BE32(SHA-256("interpay-pairing-v1" ‖ initiatorID ‖ responderID ‖ initiatorNonce ‖ responderNonce)[0..<4])
/// mod 10^6`, shown as 6 decimal digits. The initiator commits to its nonce before it sees the responder's
/// (`commitment(to:)`), so no one who takes part in a pairing can choose a nonce that makes the code come out
/// equal to a code shown elsewhere; a one-in-a-million guess is all that is left, and users compare the codes.
/// See PROTOCOL.md §7.9.
public struct PairingCode: Sendable, Hashable, CustomStringConvertible {
    /// The six digits, `000000` to `999999`.
    public let digits: String

    /// The code as typed by a user: 6 digits; spaces and `-` are ignored. Nil if that is not what it is.
    public init?(userInput text: String) {
        let digits = text.filter { $0 != " " && $0 != "-" }
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        self.digits = digits
    }

    private init(value: UInt32) {
        let text = String(value % 1_000_000)
        self.digits = String(repeating: "0", count: 6 - text.count) + text
    }

    /// Derives the code from both peer IDs and both nonces, in the initiator's order.
    public init(initiator: PeerID, responder: PeerID, initiatorNonce: [UInt8], responderNonce: [UInt8]) {
        var hasher = SHA256()
        hasher.update(data: Array(Self.domain.utf8))
        hasher.update(data: initiator.bytes)
        hasher.update(data: responder.bytes)
        hasher.update(data: initiatorNonce)
        hasher.update(data: responderNonce)
        let digest = Array(hasher.finalize())
        let value = UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])
        self.init(value: value)
    }

    /// The commitment the initiator sends before revealing `nonce`: SHA-256("interpay-pairing-commit-v1" ‖ nonce).
    public static func commitment(to nonce: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array(commitDomain.utf8))
        hasher.update(data: nonce)
        return Array(hasher.finalize())
    }

    /// 32 random bytes from the system's secure generator.
    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `123 456`: the digits in two groups, as shown to users.
    public var description: String { "\(digits.prefix(3)) \(digits.suffix(3))" }

    static let domain = "interpay-pairing-v1"
    static let commitDomain = "interpay-pairing-commit-v1"
}
