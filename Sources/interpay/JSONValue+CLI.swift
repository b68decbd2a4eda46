import FoundationEssentials
import InterPayContract
import InterPayCore

/// Reading the events `interpay watch` prints, whose envelope is not one of the control methods' typed answers.
extension JSONValue {
    /// The member `key` of an object.
    func field(_ key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// A string, or a number or bool as text, safe to print: control characters (which a peer's name, memo or
    /// reason could carry to make the terminal hide or rewrite text) are escaped (`SafeText`). `--json` output is
    /// JSON-escaped instead and does not use this.
    var text: String? {
        switch self {
        case .string(let string): SafeText.escaped(string)
        case .int(let int): String(int)
        case .double(let double): String(double)
        case .bool(let bool): String(bool)
        default: nil
        }
    }

    /// An integer.
    var integer: Int64? {
        if case .int(let int) = self { int } else { nil }
    }

    /// Text of member `key`, or `fallback`.
    func string(_ key: String, _ fallback: String = "") -> String {
        field(key)?.text ?? fallback
    }
}
