public import Hummingbird
public import NIOCore

/// The web app's request context: Hummingbird's core context, and the connection the request came on, so that a
/// refusal can end the connection instead of reading what the client still sends (`CredentialMiddleware`) and a body
/// can be given a deadline (`WebApp.collectBody`).
public struct WebRequestContext: RequestContext {
    /// Hummingbird's part of the context.
    public var coreContext: CoreRequestContextStorage
    /// The connection.
    public let channel: any Channel

    /// A context for a request arriving on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
