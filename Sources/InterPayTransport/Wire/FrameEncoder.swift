public import InterPayCore
public import NIOCore

/// A frame on its way out: a message to encode, or a body encoded already (an outbox frame resent byte for byte).
public enum OutboundFrame: Sendable {
    /// A message, encoded by `FrameEncoder`.
    case message(PaymentMessage)
    /// A frame body exactly as `FrameCodec.encodeBody` produced it (no length prefix).
    case encoded([UInt8])
}

/// Writes frames as length-prefixed canonical JSON.
public struct FrameEncoder: MessageToByteEncoder {
    public typealias OutboundIn = OutboundFrame

    private let codec: FrameCodec

    /// An encoder refusing frames over the codec's limit.
    public init(codec: FrameCodec) {
        self.codec = codec
    }

    public func encode(data: OutboundFrame, out: inout ByteBuffer) throws {
        switch data {
        case .message(let message):
            out.writeBytes(try codec.encode(message))
        case .encoded(let body):
            guard body.count <= codec.maxFrameSize else {
                throw FrameEncodingError.tooLarge(body.count, limit: codec.maxFrameSize)
            }
            out.writeInteger(UInt32(body.count))
            out.writeBytes(body)
        }
    }
}
