public import FoundationEssentials

/// What can still be read from a frame body that failed to decode: its `type` and `messageID`, when present and
/// well formed. PROTOCOL.md §13.2 answers such a frame with `ref` when its message ID could be read, and never
/// answers a broken `error` frame.
public struct FrameHeader: Sendable, Hashable {
    /// The frame's `type` member, if the body is a JSON object with a string `type`.
    public let type: String?
    /// The frame's `messageID` member, if it is present and a valid UUID.
    public let messageID: UUID?

    /// A header with the given members.
    public init(type: String?, messageID: UUID?) {
        self.type = type
        self.messageID = messageID
    }

    /// Reads `type` and `messageID` leniently from a frame body; a body that is not a JSON object gives neither.
    public init(lenientlyReading body: some Collection<UInt8>) {
        // A body that is not a JSON object fails here; the scan below still looks at it.
        if let object = try? JSONDecoder().decode(LenientHeader.self, from: Data(body)) {
            self.init(type: object.type, messageID: object.messageID.flatMap { UUID(uuidString: $0) })
            return
        }
        // Foundation cannot parse every body worth answering with a ref (a number such as 1e400, invalid UTF-8
        // in a memo): read the top-level string members directly.
        let members = JSONMemberScan.topLevelStrings(in: body)
        self.init(type: members["type"], messageID: members["messageID"].flatMap { UUID(uuidString: $0) })
    }
}

/// The `type` and `messageID` members of a JSON object, each nil when absent or not a string; decoding fails only
/// when the body is not a JSON object.
private struct LenientHeader: Decodable {
    let type: String?
    let messageID: String?

    private enum CodingKeys: String, CodingKey {
        case type, messageID
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // A member of another type counts as absent, as it did with JSONSerialization.
        type = try? container.decodeIfPresent(String.self, forKey: .type)
        messageID = try? container.decodeIfPresent(String.self, forKey: .messageID)
    }
}
