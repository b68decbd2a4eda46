public import Foundation

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
        if let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] {
            self.init(
                type: object["type"] as? String,
                messageID: (object["messageID"] as? String).flatMap { UUID(uuidString: $0) })
            return
        }
        // Foundation cannot parse every body worth answering with a ref (a number such as 1e400, invalid UTF-8
        // in a memo): read the top-level string members directly.
        let members = JSONMemberScan.topLevelStrings(in: body)
        self.init(type: members["type"], messageID: members["messageID"].flatMap { UUID(uuidString: $0) })
    }
}
