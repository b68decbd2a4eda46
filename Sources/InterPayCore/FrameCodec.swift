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

    /// Made once per codec rather than per frame. Foundation's coders are safe to share between threads: their
    /// options are guarded by a lock and each call encodes or decodes with state of its own.
    private let encoder: JSONEncoder
    private let decoder = JSONDecoder()

    /// A codec with the protocol's 64 KiB limit or a lower one.
    public init(maxFrameSize: Int = Limits.maxFrameSize) {
        precondition(maxFrameSize > 0 && maxFrameSize <= Limits.maxFrameSize, "frame limit out of range")
        self.maxFrameSize = maxFrameSize
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.encoder = encoder
    }

    // MARK: Encoding

    /// Encodes a message as its JSON body (no prefix).
    public func encodeBody(_ message: PaymentMessage) throws(FrameEncodingError) -> [UInt8] {
        let body: Data
        do {
            body = try encoder.encode(message)
        } catch {
            throw .encodingFailed(String(describing: error))
        }
        guard body.count <= maxFrameSize else { throw .tooLarge(body.count, limit: maxFrameSize) }
        return Array(body)
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
        let data = Data(body)
        // ASCII (most frames) is valid UTF-8; only other text needs the full check, which copies it into a String.
        guard data.allSatisfy({ $0 < 0x80 }) || String(validating: data, as: UTF8.self) != nil else {
            throw .invalidUTF8
        }
        // JSON text exchanged between systems must not begin with a byte order mark (RFC 8259, section 8.1).
        guard !data.starts(with: [0xEF, 0xBB, 0xBF]) else { throw .invalidJSON("byte order mark before the JSON") }
        let message: PaymentMessage
        do {
            message = try decoder.decode(PaymentMessage.self, from: data)
        } catch let error as FrameError {
            throw error
        } catch let error as DecodingError {
            throw Self.frameError(for: error, body: data)
        } catch {
            throw .invalidJSON(String(describing: error))
        }
        // PROTOCOL.md §5.2: an object with two members of the same name is refused (parsers disagree on which one
        // counts). The project's strict reader finds them while parsing; JSONDecoder keeps one silently.
        do {
            _ = try JSONTree.parse(data, duplicateMembers: .refuse)
        } catch {
            throw .invalidJSON(
                error.duplicateName.map { "duplicate member name '\($0.prefix(40))'" } ?? error.description)
        }
        return message
    }

    /// Maps Foundation's decoding errors to the protocol's error classes.
    private static func frameError(for error: DecodingError, body: Data) -> FrameError {
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
            // Foundation reports a number that does not fit its field (12.5 or -1 for an unsigned integer) as
            // "not valid JSON" at the root. Only on this error path, tell the two apart with the strict reader.
            // A body that it does not read as an object is reported as Foundation put it (the error is the
            // answer, so it is not rethrown).
            guard let object = try? JSONTree.parse(body, duplicateMembers: .keep), case .object = object else {
                return .invalidJSON(context.debugDescription)
            }
            // Foundation does not say which number; every number in a frame is an integer, so find the first one
            // that is not (or, failing that, the first negative one, which no unsigned field takes).
            let field =
                numberPath(in: object, where: { !$0.isIntegralInt64 }) ?? numberPath(in: object, where: { $0 < 0 })
            return .invalidField(field ?? "(number)", detail: "a number is not an integer or is out of range")
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
