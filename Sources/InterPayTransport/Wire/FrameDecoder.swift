public import InterPayCore
public import NIOCore

/// Splits the inbound byte stream into frames and decodes them (`FrameCodec.nextFrame(in:)`).
///
/// The length prefix is checked against the limit as soon as its 4 bytes are in, before any body byte is buffered,
/// so a peer announcing a huge frame costs nothing: the decoder throws `FrameError.oversize` and the session ends.
/// A body that fails to decode is passed on as an `UndecodableFrame` instead, so that the session can answer it.
public struct FrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = InboundFrame

    private let codec: FrameCodec

    /// A decoder enforcing the codec's frame limit.
    public init(codec: FrameCodec) {
        self.codec = codec
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let next = try buffer.withUnsafeReadableBytes { bytes in try codec.nextFrame(in: bytes) }
        guard let (frame, length) = next else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: length)
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
