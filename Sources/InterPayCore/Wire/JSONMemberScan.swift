/// The top-level string members of a frame body that is not JSON at all (invalid UTF-8 in a memo, a string cut
/// off), so that the error answering it can still name its `messageID` (PROTOCOL.md §13.2). Every body that is JSON
/// is read by the strict reader (`JSONTree`); this scan is only the best effort for the others.
///
/// Names are compared after unescaping. The scan never traps, whatever the input; on text that is not JSON its
/// answers are best effort.
enum JSONMemberScan {
    /// The string members of the top-level object, first occurrence of each name; empty if the text is not an
    /// object.
    static func topLevelStrings(in body: some Collection<UInt8>) -> [String: String] {
        let bytes = Array(body)
        var members: [String: String] = [:]
        var depth = 0
        var topIsObject = false
        var expectingName = false
        var name: String?
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 0 { topIsObject = bytes[index] == UInt8(ascii: "{") }
                depth += 1
                expectingName = depth == 1 && topIsObject
                if depth == 2 { name = nil }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                expectingName = false
            case UInt8(ascii: ","):
                expectingName = depth == 1 && topIsObject
                name = nil
            case UInt8(ascii: "\""):
                let (text, end) = string(in: bytes, from: index + 1)
                if depth == 1, topIsObject {
                    if expectingName {
                        name = text
                        expectingName = false
                    } else if let name, members[name] == nil {
                        members[name] = text
                    }
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return members
    }

    /// The unescaped string starting after its opening quote, and the index of its closing quote.
    private static func string(in bytes: [UInt8], from start: Int) -> (String, Int) {
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flushRaw() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        var index = start
        var pendingHigh: UInt32?
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                raw.append(bytes[index])
                index += 1
                continue
            }
            flushRaw()
            let escaped = bytes[index + 1]
            index += 2
            var scalar: UInt32?
            switch escaped {
            case UInt8(ascii: "b"): scalar = 0x08
            case UInt8(ascii: "f"): scalar = 0x0C
            case UInt8(ascii: "n"): scalar = 0x0A
            case UInt8(ascii: "r"): scalar = 0x0D
            case UInt8(ascii: "t"): scalar = 0x09
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count,
                    let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                else { break }
                index += 4
                if (0xD800...0xDBFF).contains(value) {
                    pendingHigh = value
                    continue
                }
                if let high = pendingHigh, (0xDC00...0xDFFF).contains(value) {
                    scalar = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)
                } else {
                    scalar = value
                }
            default: scalar = UInt32(escaped)
            }
            pendingHigh = nil
            if let scalar, let value = Unicode.Scalar(scalar) { scalars.append(value) }
        }
        flushRaw()
        return (String(scalars), index)
    }
}
