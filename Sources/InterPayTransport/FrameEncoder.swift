public import InterPayCore
public import NIOCore

/// Writes `PaymentMessage`s as length-prefixed canonical JSON frames.
public struct FrameEncoder: MessageToByteEncoder {
    public typealias OutboundIn = PaymentMessage

    private let codec: FrameCodec

    /// An encoder refusing frames over the codec's limit.
    public init(codec: FrameCodec) {
        self.codec = codec
    }

    public func encode(data: PaymentMessage, out: inout ByteBuffer) throws {
        out.writeBytes(try codec.encode(data))
    }
}
