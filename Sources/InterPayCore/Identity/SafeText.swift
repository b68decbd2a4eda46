/// What text from a peer or a user may contain, and how it is shown where it could still do harm.
///
/// Names, memos, reasons and categories travel to other users' terminals, logs and browsers. A control character
/// (Unicode general category Cc: C0, DEL and C1, so `ESC`, `CR`, `LF` among them) can rewrite a terminal's screen,
/// hide text (`ESC[8m`) or forge a log line; a bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069) can make text read differently from what it is (PROTOCOL.md §5.3). Such text is refused on the
/// wire and on the control socket (`forbiddenScalar(in:)`), and anything shown that did not pass that check is
/// escaped first (`escaped(_:)`).
public enum SafeText {
    /// The first scalar of `text` that text in the protocol must not contain, or nil when there is none.
    public static func forbiddenScalar(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first(where: isForbidden)
    }

    /// Whether a scalar is a control character (Cc) or a bidirectional formatting control.
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // Cc: C0, DEL, C1
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi controls
        default: false
        }
    }

    /// `text` with every forbidden scalar written as `\u{XXXX}` (and `\` as `\\` so that the escape cannot be
    /// forged), safe to print to a terminal or a log. Text without either comes back unchanged.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isForbidden($0) || $0 == "\\" }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                result.append(contentsOf: "\\\\".unicodeScalars)
            } else if isForbidden(scalar) {
                result.append(contentsOf: "\\u{\(hex(scalar.value))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// A short description of a forbidden scalar for error messages: `U+001B`.
    public static func describe(_ scalar: Unicode.Scalar) -> String { "U+\(hex(scalar.value))" }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
