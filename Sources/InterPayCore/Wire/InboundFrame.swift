/// One frame as read from a byte stream: a message, or the reason its body could not be decoded.
public enum InboundFrame: Sendable {
    /// A decoded message.
    case message(PaymentMessage)
    /// A complete frame whose body is not a valid message.
    case undecodable(UndecodableFrame)
}

extension FrameCodec {
    /// Reads the first frame at the start of a byte stream's unread `bytes`.
    ///
    /// Returns the frame and how many bytes it took, or nil while the frame is incomplete (the caller waits for more
    /// bytes and asks again). The length prefix is checked against the limit as soon as its 4 bytes are in, before
    /// any body byte is looked at: a prefix announcing more than the limit throws `FrameError.oversize`, and the
    /// stream cannot go on. A complete frame whose body does not decode is returned as `.undecodable`, with what could
    /// still be read of its header, so that it can be answered; a length of 0 (PROTOCOL.md §5.2 step 4) is such a
    /// frame too, of 4 bytes.
    ///
    /// The transport's `FrameDecoder` is this function on a NIO buffer; the frame fuzz target runs it directly.
    public func nextFrame(in bytes: UnsafeRawBufferPointer) throws(FrameError) -> (frame: InboundFrame, length: Int)? {
        let announced: Int?
        do {
            announced = try bodyLength(in: bytes)
        } catch {
            if case .oversize = error { throw error }
            let header = FrameHeader(type: nil, messageID: nil)
            return (.undecodable(UndecodableFrame(error: error, header: header)), Self.prefixLength)
        }
        guard let length = announced, bytes.count >= Self.prefixLength + length else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: bytes[Self.prefixLength..<(Self.prefixLength + length)])
        do throws(FrameError) {
            return (.message(try decodeBody(body)), Self.prefixLength + length)
        } catch {
            let frame = UndecodableFrame(error: error, header: FrameHeader(lenientlyReading: body))
            return (.undecodable(frame), Self.prefixLength + length)
        }
    }
}
