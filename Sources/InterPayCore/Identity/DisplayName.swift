/// The rules of a display name (a `hello` name, `--name`): what makes one acceptable.
///
/// A name is 1 to `Limits.maxNameLength` code points, holds no control character (`SafeText`), no invisible
/// (default-ignorable) code point, does not start or end with a space, and is not written the way a peer ID or a
/// prefix of one is (`PeerID.isWrittenLikeID(_:)`), neither as it is nor as it looks (`IDSkeleton`: the digits `0`,
/// `1`, `8`, full-width, Cyrillic, Greek and other letters that look like the ID alphabet's): users name peers by ID
/// to be sure of whom they mean, so a name must never be mistaken for an ID (PROTOCOL.md §7.2).
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
        if let scalar = name.unicodeScalars.first(where: \.properties.isDefaultIgnorableCodePoint) {
            return "invisible character \(SafeText.describe(scalar)) is not allowed in a name"
        }
        if let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        {
            return "a name must not start or end with a space"
        }
        if PeerID.isWrittenLikeID(name) || PeerID.isWrittenLikeID(IDSkeleton.of(name)) {
            return "a name must not look like a peer ID or a group of one"
        }
        return nil
    }
}

/// What text looks like to a person comparing it with a peer ID: each code point replaced by the ID character it
/// can be taken for (after UTS #39's skeleton idea, restricted to the ID alphabet `A`–`Z`, `2`–`7` and `-`).
///
/// The digits `0`, `1` and `8` read as `O`, `I` and `B` (PROTOCOL.md §4.3 parses them so); full-width and
/// mathematical letters and digits, circled letters, and the Cyrillic and Greek letters drawn like Latin ones read as
/// those; dashes of every kind read as `-`; invisible code points are dropped. Lower-case ASCII stays as it is: IDs
/// are shown in capitals, and `alice` is a name.
public enum IDSkeleton {
    /// `text` as it looks (see the type).
    public static func of(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.isDefaultIgnorableCodePoint { continue }
            result.append(contentsOf: look(of: scalar).unicodeScalars)
        }
        return String(result)
    }

    /// The character `scalar` can be taken for.
    private static func look(of scalar: Unicode.Scalar) -> String {
        let value = scalar.value
        switch value {
        case 0x30: return "O"
        case 0x31: return "I"
        case 0x38: return "B"
        case 0x00..<0x80: return String(scalar)
        case 0xFF01...0xFF5E:  // full-width ASCII
            return look(of: Unicode.Scalar(value - 0xFEE0) ?? scalar)
        case 0x1D400...0x1D6A3:  // mathematical alphanumerics: 13 alphabets of 52 letters
            let index = (value - 0x1D400) % 52
            return String(Unicode.Scalar(index < 26 ? 0x41 + index : 0x61 + index - 26) ?? scalar)
        case 0x1D7CE...0x1D7FF:  // mathematical digits: 5 sets of 10
            return look(of: Unicode.Scalar(0x30 + (value - 0x1D7CE) % 10) ?? scalar)
        case 0x24B6...0x24CF:  // circled capitals
            return String(Unicode.Scalar(0x41 + value - 0x24B6) ?? scalar)
        case 0x2010...0x2015, 0x2212, 0xFE58, 0xFE63: return "-"
        default: return lookAlikes[value].map(String.init) ?? String(scalar)
        }
    }

    /// Cyrillic, Greek and other letters drawn as a Latin capital or a digit of the ID alphabet.
    private static let lookAlikes: [UInt32: Character] = [
        // Cyrillic capitals
        0x0410: "A", 0x0412: "B", 0x0415: "E", 0x041A: "K", 0x041C: "M", 0x041D: "H", 0x041E: "O", 0x0420: "P",
        0x0421: "C", 0x0422: "T", 0x0425: "X", 0x0423: "Y", 0x0405: "S", 0x0406: "I", 0x0408: "J", 0x0417: "3",
        0x04C0: "I", 0x0401: "E", 0x0407: "I", 0x04AE: "Y", 0x051A: "Q", 0x051C: "W", 0x0404: "E",
        // Greek capitals
        0x0391: "A", 0x0392: "B", 0x0395: "E", 0x0396: "Z", 0x0397: "H", 0x0399: "I", 0x039A: "K", 0x039C: "M",
        0x039D: "N", 0x039F: "O", 0x03A1: "P", 0x03A4: "T", 0x03A5: "Y", 0x03A7: "X", 0x03F9: "C", 0x037F: "J",
        // Latin letters of other blocks drawn as capitals
        0x0131: "I", 0x0130: "I", 0x01C0: "I", 0x2160: "I", 0x2164: "V", 0x2169: "X", 0x216C: "L", 0x216D: "C",
        0x216E: "D", 0x216F: "M", 0x212A: "K", 0x212B: "A", 0x2102: "C", 0x210D: "H", 0x2115: "N", 0x2119: "P",
        0x211A: "Q", 0x211D: "R", 0x2124: "Z", 0x212C: "B", 0x2130: "E", 0x2131: "F", 0x210B: "H", 0x2110: "I",
        0x2112: "L", 0x2133: "M", 0x211B: "R",
        // letters drawn as the digit 3
        0x01B7: "3", 0x0437: "3",
    ]
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

    /// Whether `text` is a short peer ID as shown (`shortDescription`): 7 characters of the ID alphabet in capitals.
    /// What a view puts into a command for the user to paste is checked with it, never taken on trust.
    public static func isShortID(_ text: String?) -> Bool {
        guard let text, text.unicodeScalars.count == 7 else { return false }
        return text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("2"..."7").contains($0) }
    }

    /// `text` as the compact capitals of an ID prefix (no `-` or spaces), to compare with `compactDescription`,
    /// with §4.3's lenient reading: the look-alikes `0`, `1` and `8` are `O`, `I` and `B`.
    public static func compactPrefix(_ text: String) -> String {
        String(
            text.uppercased().compactMap { character -> Character? in
                switch character {
                case "-", " ": nil
                case "0": "O"
                case "1": "I"
                case "8": "B"
                default: character
                }
            })
    }

    /// The text form without its `-` separators.
    public var compactDescription: String { String(description.filter { $0 != "-" }) }
}
