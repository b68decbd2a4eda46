/// Member-level facts about a JSON text that Foundation's parsers do not give: an object with two members of the
/// same name (PROTOCOL.md §5.2: receivers SHOULD reject such a frame as `invalid-json`, since parsers disagree on
/// which of the two counts), and the top-level string members of a body that Foundation cannot parse at all (a
/// number like `1e400`, invalid UTF-8), so that an error can still name the frame's `messageID` (§13.2).
///
/// Names are compared after unescaping (`"a"` and `"\u0061"` are the same name), code point by code point. The scan
/// never traps, whatever the input; on text that is not JSON its answers are best effort.
enum JSONMemberScan {
    /// The first name that occurs twice in one object, or nil.
    static func firstDuplicate(in body: some Collection<UInt8>) -> String? {
        let bytes = Array(body)
        // One entry per open container: the names seen so far for an object, nil for an array.
        var containers: [Set<String>?] = []
        var expectingName = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                containers.append([])
                expectingName = true
            case UInt8(ascii: "["):
                containers.append(nil)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = containers.popLast()
                expectingName = false
            case UInt8(ascii: ","):
                expectingName = containers.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let (text, end) = string(in: bytes, from: index + 1)
                if expectingName, let last = containers.indices.last, containers[last] != nil {
                    if containers[last]?.insert(text).inserted == false { return text }
                    expectingName = false
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }

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
