/// Why a body is not valid JSON: what was wrong and at which byte.
struct RawJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte offset (from 0) where the problem was found.
    let offset: Int
    /// What was expected or found there.
    let reason: String

    var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
