import NIOCore

/// One inbound line of the control protocol, or the news that a line was too long.
enum ControlLine: Sendable {
    /// A complete line without its terminator (`\n`, or `\r\n`).
    case line(ByteBuffer)
    /// A line exceeded the limit; everything after it is discarded.
    case tooLong(limit: Int)
}

/// Splits the byte stream into newline-terminated lines of at most `maxLength` bytes.
///
/// The bound holds before a newline is seen: once more than `maxLength` bytes are buffered without one, the decoder
/// emits `.tooLong` and drops all further input, so a client cannot make the server buffer without limit. NIOExtras'
/// `LineBasedFrameDecoder` has no such bound. An unterminated last line is delivered at end of input.
struct ControlLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ControlLine

    private let maxLength: Int
    /// Bytes at the start of the buffer already searched for a newline.
    private var scanned = 0
    private var overflowed = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if overflowed {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        let view = buffer.readableBytesView
        if let newline = view.dropFirst(scanned).firstIndex(of: UInt8(ascii: "\n")) {
            var length = newline - view.startIndex
            scanned = 0
            if length > 0, view[newline - 1] == UInt8(ascii: "\r") { length -= 1 }
            guard length <= maxLength else {
                overflow(context: context, buffer: &buffer)
                return .needMoreData
            }
            let line = buffer.getSlice(at: buffer.readerIndex, length: length) ?? ByteBuffer()
            buffer.moveReaderIndex(forwardBy: newline - view.startIndex + 1)
            context.fireChannelRead(wrapInboundOut(.line(line)))
            return .continue
        }
        scanned = view.count
        // One byte of slack for a `\r` whose `\n` has not arrived yet.
        if scanned > maxLength + 1 { overflow(context: context, buffer: &buffer) }
        return .needMoreData
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if !overflowed, buffer.readableBytes > 0 {
            var length = buffer.readableBytes
            if buffer.getInteger(at: buffer.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\r") { length -= 1 }
            if length > maxLength {
                overflow(context: context, buffer: &buffer)
            } else if let line = buffer.readSlice(length: length) {
                context.fireChannelRead(wrapInboundOut(.line(line)))
            }
            buffer.moveReaderIndex(to: buffer.writerIndex)
            scanned = 0
        }
        return .needMoreData
    }

    private mutating func overflow(context: ChannelHandlerContext, buffer: inout ByteBuffer) {
        overflowed = true
        buffer.moveReaderIndex(to: buffer.writerIndex)
        context.fireChannelRead(wrapInboundOut(.tooLong(limit: maxLength)))
    }
}
