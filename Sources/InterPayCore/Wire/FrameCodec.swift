import FoundationEssentials
import InterPayJSON

/// Turns `PaymentMessage`s into frames and back: a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
///
/// Pure bytes in, bytes out: no I/O. The length prefix is checked against `maxFrameSize` before any body byte is
/// looked at, so an announced 4 GiB frame costs nothing. Output is canonical: compact JSON with sorted keys.
public struct FrameCodec: Sendable {
    /// Size of the length prefix in bytes.
    public static let prefixLength = 4

    /// The largest body accepted and produced; at most `Limits.maxFrameSize`.
    public let maxFrameSize: Int

    /// A codec with the protocol's 64 KiB limit or a lower one.
    public init(maxFrameSize: Int = Limits.maxFrameSize) {
        precondition(maxFrameSize > 0 && maxFrameSize <= Limits.maxFrameSize, "frame limit out of range")
        self.maxFrameSize = maxFrameSize
    }

    // MARK: Encoding

    /// Encodes a message as its JSON body (no prefix).
    public func encodeBody(_ message: PaymentMessage) throws(FrameEncodingError) -> [UInt8] {
        let body: [UInt8]
        do {
            body = try CanonicalJSONEncoder().encode(message)
        } catch {
            throw .encodingFailed(String(describing: error))
        }
        guard body.count <= maxFrameSize else { throw .tooLarge(body.count, limit: maxFrameSize) }
        return body
    }

    /// Encodes a message as a complete frame: length prefix and body.
    public func encode(_ message: PaymentMessage) throws(FrameEncodingError) -> [UInt8] {
        let body = try encodeBody(message)
        let length = UInt32(body.count)
        var frame: [UInt8] = [
            UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF),
        ]
        frame.reserveCapacity(Self.prefixLength + body.count)
        frame += body
        return frame
    }

    // MARK: Decoding

    /// Reads the length prefix at the start of `bytes` and checks it against the limit.
    ///
    /// Returns nil when fewer than 4 bytes are available yet (a stream decoder waits for more).
    public func bodyLength(in bytes: some Collection<UInt8>) throws(FrameError) -> Int? {
        guard bytes.count >= Self.prefixLength else { return nil }
        var length: UInt32 = 0
        for byte in bytes.prefix(Self.prefixLength) { length = length << 8 | UInt32(byte) }
        guard length <= maxFrameSize else { throw .oversize(length: length, limit: maxFrameSize) }
        guard length > 0 else { throw .invalidJSON("empty body") }
        return Int(length)
    }

    /// Decodes exactly one complete frame that fills all of `bytes`.
    public func decode(_ bytes: some Collection<UInt8>) throws(FrameError) -> PaymentMessage {
        guard let length = try bodyLength(in: bytes) else {
            throw .truncated(expected: Self.prefixLength, available: bytes.count)
        }
        let available = bytes.count - Self.prefixLength
        guard available >= length else { throw .truncated(expected: length, available: available) }
        guard available == length else {
            throw .invalidJSON("\(available - length) bytes after the end of the frame")
        }
        return try decodeBody(bytes.dropFirst(Self.prefixLength))
    }

    /// Decodes a frame body (the JSON, without prefix).
    public func decodeBody(_ body: some Collection<UInt8>) throws(FrameError) -> PaymentMessage {
        guard body.count <= maxFrameSize else {
            throw .oversize(length: UInt32(clamping: body.count), limit: maxFrameSize)
        }
        let bytes = Array(body)
        // ASCII (most frames) is valid UTF-8; only other text needs the full check.
        guard bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil else {
            throw .invalidUTF8
        }
        // JSON text exchanged between systems must not begin with a byte order mark (RFC 8259, section 8.1).
        guard !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else { throw .invalidJSON("byte order mark before the JSON") }
        // One strict parse: PROTOCOL.md §5.2 refuses an object with two members of the same name (parsers disagree
        // on which one counts), and the reader finds them while parsing; the typed message is then decoded from the
        // tree.
        let tree: JSONTree
        do {
            tree = try JSONTree.parse(bytes, duplicateMembers: .refuse)
        } catch {
            throw .invalidJSON(
                error.duplicateName.map { "duplicate member name '\($0.prefix(40))'" } ?? error.description)
        }
        do {
            return try JSONTreeDecoder().decode(PaymentMessage.self, from: tree)
        } catch let error as FrameError {
            throw error
        } catch let error as DecodingError {
            throw Self.frameError(for: error, tree: tree)
        } catch {
            throw .invalidJSON(String(describing: error))
        }
    }

    /// Maps decoding errors to the protocol's error classes.
    private static func frameError(for error: DecodingError, tree: JSONTree) -> FrameError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            (codingPath + (last.map { [$0] } ?? [])).map { key in
                key.intValue.map { "[\($0)]" } ?? key.stringValue
            }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .missingField(path(context.codingPath, key))
        case .valueNotFound(_, let context):
            return context.codingPath.isEmpty
                ? .invalidJSON(context.debugDescription) : .invalidField(path(context.codingPath), detail: "null")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // A check of a whole message that failed: name the first number that no field takes, if any (every
            // number in a frame is an integer).
            guard case .object = tree else { return .invalidJSON(context.debugDescription) }
            guard
                let field = numberPath(in: tree, where: { !$0.isIntegralInt64 })
                    ?? numberPath(in: tree, where: { $0 < 0 })
            else { return .invalidField("(message)", detail: context.debugDescription) }
            return .invalidField(field, detail: "a number is not an integer or is out of range")
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            // An error at the root means the body itself is not a JSON object.
            return context.codingPath.isEmpty
                ? .invalidJSON(context.debugDescription)
                : .invalidField(path(context.codingPath), detail: context.debugDescription)
        @unknown default:
            return .invalidJSON(String(describing: error))
        }
    }

    /// The dotted path of the first number in `value` (members in name order) that `matches`, or nil. Numbers are
    /// compared as doubles (a text beyond Double's range as infinite).
    private static func numberPath(in value: JSONTree, path: String = "", where matches: (Double) -> Bool) -> String? {
        switch value {
        case .object(let members):
            for member in members.sorted(by: { $0.key < $1.key }) {
                let child = path.isEmpty ? member.key : path + "." + member.key
                if let found = numberPath(in: member.value, path: child, where: matches) { return found }
            }
            return nil
        case .array(let array):
            for (index, element) in array.enumerated() {
                if let found = numberPath(in: element, path: path + "[\(index)]", where: matches) { return found }
            }
            return nil
        case .number(let text):
            let number = Double(text) ?? (text.hasPrefix("-") ? -Double.infinity : .infinity)
            return matches(number) ? path : nil
        case .string, .bool, .null:
            return nil
        }
    }
}

extension Double {
    /// Whether this is a whole number that a signed 64-bit integer holds.
    fileprivate var isIntegralInt64: Bool { rounded() == self && abs(self) < 9.223_372_036_854_775_807e18 }
}
