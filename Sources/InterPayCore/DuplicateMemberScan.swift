/// Finds an object with two members of the same name in a JSON text (PROTOCOL.md §5.2: receivers SHOULD reject
/// such a frame as `invalid-json`, since parsers disagree on which of the two counts).
///
/// Foundation's decoders silently keep one of the two, so the codec scans the body itself after it decoded. Names
/// are compared after unescaping (`"a"` and `"\u0061"` are the same name), code point by code point. The scan
/// expects text that already parsed as JSON; on anything else it returns nil or a meaningless name, never traps.
enum DuplicateMemberScan {
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
