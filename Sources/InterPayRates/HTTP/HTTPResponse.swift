/// A successful (2xx) HTTP response: its status and body.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, e.g. 200.
    public let status: Int
    /// The body, after any content decoding, at most the client's size limit.
    public let body: [UInt8]

    /// Wraps a status and a body.
    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}
