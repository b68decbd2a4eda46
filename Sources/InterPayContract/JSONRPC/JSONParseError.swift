/// Why bytes are not a JSON value; carries the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. "unterminated string".
    public var reason: String
    /// The byte offset in the input where the problem was found.
    public var offset: Int

    /// An error at `offset`.
    public init(_ reason: String, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason) at byte \(offset)" }
}
