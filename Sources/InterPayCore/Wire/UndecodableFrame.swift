/// A complete frame whose body is not a valid message: why, and what could still be read of it.
public struct UndecodableFrame: Sendable {
    /// Why the body could not be decoded.
    public let error: FrameError
    /// The `type` and `messageID` that could still be read.
    public let header: FrameHeader

    /// An undecodable frame.
    public init(error: FrameError, header: FrameHeader) {
        self.error = error
        self.header = header
    }

    /// The `error` frame that answers it (PROTOCOL.md §13.2), or nil when it must not be answered: an `error` frame
    /// is never answered with an `error`, even a broken one, so that two peers cannot trade errors forever.
    public var answer: PaymentMessage? {
        guard header.type != "error" else { return nil }
        let code: PaymentMessage.ErrorFrame.Code =
            if case .unknownType = error { .unknownType } else { .malformedFrame }
        // The limit counts code points: a prefix of 200 characters can hold many more (an unknown `type` made of
        // letters with combining marks), and an over-long message would make the answer itself malformed.
        let message = String(String.UnicodeScalarView(error.description.unicodeScalars.prefix(Limits.maxReasonLength)))
        return .error(.init(code: code, message: message, ref: header.messageID))
    }
}
