public import FoundationEssentials
import InterPayJSON

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
    /// A member of another type counts as absent.
    public init(lenientlyReading body: some Collection<UInt8>) {
        // The strict reader keeps numbers as text, so a number such as 1e400 does not stop it; repeated names are
        // kept (the first counts) since the frame is refused anyway.
        if let tree = try? JSONTree.parse(body, duplicateMembers: .keep) {
            // Not JSON: the scan below reads what it can.
            self.init(
                type: tree["type"]?.stringValue,
                messageID: tree["messageID"]?.stringValue.flatMap { UUID(uuidString: $0) })
            return
        }
        // A body that is not JSON at all (invalid UTF-8 in a memo, a cut-off string) may still name its messageID,
        // which the answer should quote (§13.2): read the top-level string members directly.
        let members = JSONMemberScan.topLevelStrings(in: body)
        self.init(type: members["type"], messageID: members["messageID"].flatMap { UUID(uuidString: $0) })
    }
}
