public import InterPayCore
public import NIOCore

/// Splits the inbound byte stream into frames and decodes them into `PaymentMessage`s.
///
/// The length prefix is checked against the limit as soon as its 4 bytes are in, before any body byte is buffered,
/// so a peer announcing a huge frame costs nothing: the decoder throws `FrameError.oversize` and the session ends.
/// A body that fails to decode is passed on as a `FrameError` value instead, so that the session can answer it.
public struct FrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = InboundFrame

    private let codec: FrameCodec

    /// A decoder enforcing the codec's frame limit.
    public init(codec: FrameCodec) {
        self.codec = codec
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let announced: Int?
        do {
            announced = try buffer.withUnsafeReadableBytes { bytes in try codec.bodyLength(in: bytes) }
        } catch let error as FrameError {
            if case .oversize = error { throw error }
            // A length of 0 (PROTOCOL.md §5.2 step 4) is a complete, invalid frame, not a broken stream: pass it on
            // to be answered, and go on with the next frame.
            buffer.moveReaderIndex(forwardBy: FrameCodec.prefixLength)
            let header = FrameHeader(type: nil, messageID: nil)
            context.fireChannelRead(wrapInboundOut(.undecodable(UndecodableFrame(error: error, header: header))))
            return .continue
        }
        guard let length = announced else { return .needMoreData }
        guard buffer.readableBytes >= FrameCodec.prefixLength + length else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: FrameCodec.prefixLength)
        let frame = buffer.readWithUnsafeReadableBytes { bytes in
            let body = UnsafeRawBufferPointer(rebasing: bytes.prefix(length))
            let decoded: InboundFrame
            do throws(FrameError) {
                decoded = .message(try codec.decodeBody(body))
            } catch {
                decoded = .undecodable(UndecodableFrame(error: error, header: FrameHeader(lenientlyReading: body)))
            }
            return (length, decoded)
        }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws
        -> DecodingState
    {
        // Whatever is left at EOF is an incomplete frame; it is dropped with the connection.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

/// One frame as read from the wire: a message, or the reason its body could not be decoded.
public enum InboundFrame: Sendable {
    /// A decoded message.
    case message(PaymentMessage)
    /// A complete frame whose body is not a valid message.
    case undecodable(UndecodableFrame)
}
