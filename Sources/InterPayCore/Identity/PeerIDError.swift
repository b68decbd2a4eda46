/// Why a peer ID text was refused.
public enum PeerIDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text has a character outside the base32 alphabet (after the usual look-alike mappings).
    case invalidCharacter(Character, text: String)
    /// The text does not have the 56 significant characters of a full peer ID.
    case wrongLength(Int, text: String)
    /// A check character does not match its group: the ID was mistyped or misread.
    case checkFailed(group: Int, text: String)
    /// Raw ID bytes that are not exactly 32 bytes long.
    case wrongByteCount(Int)

    public var description: String {
        switch self {
        case .invalidCharacter(let character, let text):
            "'\(text)' is not a peer ID: '\(character)' is not one of A–Z, 2–7"
        case .wrongLength(let count, let text):
            "'\(text)' is not a peer ID: it has \(count) characters, a peer ID has 56 (8 groups of 7)"
        case .checkFailed(let group, let text):
            "'\(text)' is not a valid peer ID: the check character of part \(group) does not match (a typo?)"
        case .wrongByteCount(let count):
            "a peer ID is 32 bytes, got \(count)"
        }
    }
}
