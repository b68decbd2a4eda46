/// Why bytes are not a JSON document: what was wrong and at which byte.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte offset (from 0) where the problem was found.
    public let offset: Int
    /// What was expected or found there.
    public let reason: String
    /// The name that occurred twice in one object, when that is the problem (`JSONTree.DuplicateMembers.refuse`).
    public let duplicateName: String?

    /// An error at `offset`.
    public init(offset: Int, reason: String, duplicateName: String? = nil) {
        self.offset = offset
        self.reason = reason
        self.duplicateName = duplicateName
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
