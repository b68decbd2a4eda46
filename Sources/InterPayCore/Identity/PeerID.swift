import Crypto
public import FoundationEssentials

/// The identity of an InterPay daemon: the SHA-256 of the DER SubjectPublicKeyInfo of its TLS key.
///
/// Its text form is meant to be compared aloud: the 32 bytes in base32 (RFC 4648, 52 characters), cut into four
/// chunks of 13 characters that each get a Luhn mod 32 check character, shown as 8 groups of 7 separated by `-`:
/// `MFRGGZD-FMZTWQ2-...`. A mistyped character is caught by its chunk's check character. The short form is the
/// first group. See `protocol/PROTOCOL.md`, "Peer ID".
public struct PeerID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256 digest.
    public let bytes: [UInt8]
    /// The full text form: 8 groups of 7 characters separated by `-` (63 characters). Computed once: the ledger and
    /// the logs use it all the time.
    public let description: String

    /// Wraps 32 digest bytes.
    public init(bytes: [UInt8]) throws(PeerIDError) {
        guard bytes.count == 32 else { throw .wrongByteCount(bytes.count) }
        self.bytes = bytes
        self.description = Self.text(of: bytes)
    }

    /// Derives the peer ID of a public key from its DER-encoded SubjectPublicKeyInfo.
    public init(subjectPublicKeyInfoDER der: some DataProtocol) {
        self.bytes = Array(SHA256.hash(data: der))
        self.description = Self.text(of: bytes)
    }

    public static func == (lhs: PeerID, rhs: PeerID) -> Bool { lhs.bytes == rhs.bytes }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    /// Parses the text form. Case, `-` and spaces do not matter, and the look-alikes `0`, `1`, `8` are read as
    /// `O`, `I`, `B`; every check character must match.
    public init(parsing text: String) throws(PeerIDError) {
        if let canonical = Self.canonical(text) {
            self = canonical
            return
        }
        var values: [UInt8] = []
        values.reserveCapacity(56)
        for character in text where character != "-" && character != " " {
            guard let value = Self.value(of: character) else { throw .invalidCharacter(character, text: text) }
            values.append(value)
        }
        guard values.count == 56 else { throw .wrongLength(values.count, text: text) }
        var data: [UInt8] = []
        data.reserveCapacity(52)
        for chunk in 0..<4 {
            let chunkValues = values[(chunk * 14)..<(chunk * 14 + 13)]
            guard Self.luhnCheck(chunkValues) == values[chunk * 14 + 13] else {
                throw .checkFailed(group: chunk + 1, text: text)
            }
            data += chunkValues
        }
        guard let decoded = Self.base32Decode(data) else { throw .wrongLength(values.count, text: text) }
        try self.init(bytes: decoded)
    }

    private init(bytes: [UInt8], description: String) {
        self.bytes = bytes
        self.description = description
    }

    /// The ID when `text` is already its canonical form (63 characters, upper case, `-` in place, checks right): read
    /// byte by byte, and the text kept as the description. The ledger and frames hold only canonical IDs, and each
    /// row read parses one, so this is the common case; anything else goes the general way.
    private static func canonical(_ text: String) -> PeerID? {
        var text = text
        let bytes = text.withUTF8 { utf8 -> [UInt8]? in
            guard utf8.count == 63 else { return nil }
            var values = [UInt8](repeating: 0, count: 56)
            var count = 0
            for (index, byte) in utf8.enumerated() {
                if index % 8 == 7 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): values[count] = byte - UInt8(ascii: "A")
                case UInt8(ascii: "2")...UInt8(ascii: "7"): values[count] = byte - UInt8(ascii: "2") + 26
                default: return nil
                }
                count += 1
            }
            var data: [UInt8] = []
            data.reserveCapacity(52)
            for chunk in 0..<4 {
                let chunkValues = values[(chunk * 14)..<(chunk * 14 + 13)]
                guard luhnCheck(chunkValues) == values[chunk * 14 + 13] else { return nil }
                data += chunkValues
            }
            return base32Decode(data)
        }
        guard let bytes, bytes.count == 32 else { return nil }
        return PeerID(bytes: bytes, description: text)
    }

    /// The text form of 32 bytes (see `description`).
    private static func text(of bytes: [UInt8]) -> String {
        let data = Self.base32Encode(bytes)
        var withChecks: [UInt8] = []
        withChecks.reserveCapacity(56)
        for chunk in 0..<4 {
            let chunkValues = data[(chunk * 13)..<(chunk * 13 + 13)]
            withChecks += chunkValues
            withChecks.append(Self.luhnCheck(chunkValues))
        }
        var text = ""
        text.reserveCapacity(63)
        for (index, value) in withChecks.enumerated() {
            if index > 0, index % 7 == 0 { text.append("-") }
            text.unicodeScalars.append(Self.alphabet[Int(value)])
        }
        return text
    }

    /// The first group of the text form (7 characters): enough to tell peers apart on a LAN.
    public var shortDescription: String { String(description.prefix(7)) }

    /// Orders IDs by their bytes; used to break ties deterministically (e.g. simultaneous dials).
    public static func < (lhs: PeerID, rhs: PeerID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    // MARK: Base32 and Luhn mod 32

    private static let alphabet: [Unicode.Scalar] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".unicodeScalars)

    /// The base32 value of a character, accepting lower case and the look-alikes 0, 1 and 8.
    private static func value(of character: Character) -> UInt8? {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else { return nil }
        switch scalar {
        case "A"..."Z": return UInt8(scalar.value - 65)
        case "a"..."z": return UInt8(scalar.value - 97)
        case "2"..."7": return UInt8(scalar.value - 50 + 26)
        case "0": return 14  // O
        case "1": return 8  // I
        case "8": return 1  // B
        default: return nil
        }
    }

    /// Luhn mod N with N = 32 over base32 values, processed from the rightmost character.
    static func luhnCheck(_ values: some BidirectionalCollection<UInt8>) -> UInt8 {
        let n = 32
        var factor = 2
        var sum = 0
        for value in values.reversed() {
            var addend = factor * Int(value)
            factor = factor == 2 ? 1 : 2
            addend = addend / n + addend % n
            sum += addend
        }
        return UInt8((n - sum % n) % n)
    }

    /// RFC 4648 base32 without padding, as 5-bit values.
    static func base32Encode(_ bytes: [UInt8]) -> [UInt8] {
        var (output, rest, bits) = regroup(bytes, from: 8, to: 5)
        if bits > 0 { output.append(UInt8((rest << (5 - bits)) & 31)) }
        return output
    }

    /// Decodes 5-bit values back to bytes; nil when the unused trailing bits are not zero.
    static func base32Decode(_ values: [UInt8]) -> [UInt8]? {
        let (output, rest, _) = regroup(values, from: 5, to: 8)
        return rest == 0 ? output : nil
    }

    /// `values` of `inputBits` bits each as values of `outputBits` bits, most significant bit first; with the bits
    /// left over at the end (`rest`, its low `bits` bits) that fill no output value.
    private static func regroup(
        _ values: [UInt8], from inputBits: Int, to outputBits: Int
    ) -> (output: [UInt8], rest: Int, bits: Int) {
        var output: [UInt8] = []
        output.reserveCapacity((values.count * inputBits + outputBits - 1) / outputBits)
        var buffer = 0
        var bits = 0
        for value in values {
            buffer = (buffer << inputBits) | Int(value)
            bits += inputBits
            while bits >= outputBits {
                output.append(UInt8((buffer >> (bits - outputBits)) & ((1 << outputBits) - 1)))
                bits -= outputBits
            }
            buffer &= (1 << bits) - 1
        }
        return (output, buffer, bits)
    }
}

extension PeerID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
        // On the wire only the canonical form is accepted: upper case, dashes in place, no look-alikes.
        guard description == text else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "peer ID '\(text)' is not canonical")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
