import Crypto
import FoundationEssentials

/// The 6-digit verification code two peers derive when pairing: a short authentication string.
///
/// `code = BE32(SHA-256("interpay-pairing-v2" ‖ lowerID ‖ higherID ‖ lowerNonce ‖ higherNonce)[0..<4]) mod 10^6`,
/// shown as 6 decimal digits, where `lowerID` is the peer ID whose 32 bytes sort first and `lowerNonce` is that
/// peer's nonce, so that both sides compute the same code without roles. Each side commits to its nonce
/// (`commitment(to:from:)`) and reveals it only after it holds the other side's commitment, so no one who takes part
/// can choose a nonce that makes the code come out equal to a code shown elsewhere; a one-in-a-million guess per
/// attempt is all that is left, and users compare the codes. See PROTOCOL.md §7.9.
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

    /// Derives the code from both peer IDs and both nonces; the order of the two sides does not matter.
    public init(_ one: PeerID, nonce oneNonce: [UInt8], _ other: PeerID, nonce otherNonce: [UInt8]) {
        let oneFirst = one.bytes.lexicographicallyPrecedes(other.bytes)
        let (lower, higher) = oneFirst ? (one, other) : (other, one)
        let (lowerNonce, higherNonce) = oneFirst ? (oneNonce, otherNonce) : (otherNonce, oneNonce)
        var hasher = SHA256()
        hasher.update(data: Array(Self.domain.utf8))
        hasher.update(data: lower.bytes)
        hasher.update(data: higher.bytes)
        hasher.update(data: lowerNonce)
        hasher.update(data: higherNonce)
        let digest = Array(hasher.finalize())
        let value = UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])
        self.init(value: value)
    }

    /// The commitment `sender` sends before revealing `nonce`:
    /// SHA-256("interpay-pairing-commit-v2" ‖ senderID ‖ nonce). Binding the sender's ID means a commitment
    /// reflected back at its sender, or relayed from another peer, never matches a reveal checked against the
    /// peer it came from.
    public static func commitment(to nonce: [UInt8], from sender: PeerID) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array(commitDomain.utf8))
        hasher.update(data: sender.bytes)
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

    static let domain = "interpay-pairing-v2"
    static let commitDomain = "interpay-pairing-commit-v2"
}
