/// The rules of a display name (a `hello` name, `--name`): what makes one acceptable.
///
/// A name is 1 to `Limits.maxNameLength` code points, holds no control character (`SafeText`), and is not written
/// the way a peer ID or a prefix of one is (`PeerID.isWrittenLikeID(_:)`): users name peers by ID to be sure of
/// whom they mean, so a name must never be mistaken for an ID (PROTOCOL.md §7.1).
public enum DisplayName {
    /// Why `name` is not an acceptable display name, or nil when it is.
    public static func problem(with name: String) -> String? {
        let length = name.unicodeScalars.count
        guard (1...Limits.maxNameLength).contains(length) else {
            return "a name has 1 to \(Limits.maxNameLength) code points, this one has \(length)"
        }
        if let scalar = SafeText.forbiddenScalar(in: name) {
            return "control character \(SafeText.describe(scalar)) is not allowed in a name"
        }
        if PeerID.isWrittenLikeID(name) {
            return "a name must not look like a peer ID or a group of one"
        }
        return nil
    }
}

extension PeerID {
    /// Whether `text` is written the way a peer ID, or a prefix of at least 4 characters of one, is shown: a whole
    /// ID in any case; groups of 7 characters of the ID alphabet joined by `-` (the first one complete), in any
    /// case; or 4 or more characters of the alphabet (`A`–`Z`, `2`–`7`) in capitals. Such text names a peer by ID
    /// only, and no display name may take that form. "alice" or "Jessica" is a name; "ABCD", "ABCDEFG-HI" and
    /// "abcdefg-hijklmn" are ID prefixes.
    public static func isWrittenLikeID(_ text: String) -> Bool {
        if (try? PeerID(parsing: text)) != nil { return true }  // a whole ID: the error is not needed, only the fact
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        let isAlphabet: (Character) -> Bool = { character in
            guard character.isASCII, let ascii = character.asciiValue else { return false }
            return (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(ascii)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(ascii)
                || (UInt8(ascii: "2")...UInt8(ascii: "7")).contains(ascii)
        }
        if groups.count > 1 {
            // Grouped: every group but the last has 7 characters, the last at most 7; any case.
            guard groups.dropLast().allSatisfy({ $0.count == 7 }), let last = groups.last, last.count <= 7 else {
                return false
            }
            return groups.allSatisfy { $0.allSatisfy(isAlphabet) }
        }
        // Ungrouped: 4 or more characters of the alphabet, in capitals as IDs are shown.
        return text.count >= 4 && text.allSatisfy { isAlphabet($0) && !$0.isLowercase }
    }

    /// `text` as the compact capitals of an ID prefix (no `-` or spaces), to compare with `compactDescription`.
    public static func compactPrefix(_ text: String) -> String {
        String(text.uppercased().filter { $0 != "-" && $0 != " " })
    }

    /// The text form without its `-` separators.
    public var compactDescription: String { String(description.filter { $0 != "-" }) }
}
