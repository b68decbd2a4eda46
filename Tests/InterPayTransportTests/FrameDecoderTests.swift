import InterPayCore
import InterPayTransport
import NIOCore
import NIOEmbedded
import Testing

@Suite("Frame decoder on a channel")
struct FrameDecoderTests {
    func makeChannel(limit: Int = Limits.maxFrameSize) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(FrameDecoder(codec: FrameCodec(maxFrameSize: limit))))
        return channel
    }

    @Test("frames split across reads and several frames in one read are decoded")
    func splitAndCoalesced() throws {
        let channel = try makeChannel()
        let codec = FrameCodec()
        let first = try codec.encode(.ping(nonce: 1))
        let second = try codec.encode(.close(reason: "bye"))
        try channel.writeInbound(ByteBuffer(bytes: first.prefix(3)))
        #expect(try channel.readInbound(as: InboundFrame.self) == nil)
        try channel.writeInbound(ByteBuffer(bytes: first.dropFirst(3) + second))
        guard case .message(.ping(1)) = try channel.readInbound(as: InboundFrame.self) else {
            Issue.record("expected ping")
            return
        }
        guard case .message(.close("bye")) = try channel.readInbound(as: InboundFrame.self) else {
            Issue.record("expected close")
            return
        }
        #expect(try channel.finish().isClean)
    }

    @Test("a 4 GiB length prefix fails at once, before any body is buffered")
    func oversize() throws {
        let channel = try makeChannel()
        #expect(throws: FrameError.oversize(length: 0xFFFF_FFFF, limit: Limits.maxFrameSize)) {
            try channel.writeInbound(ByteBuffer(bytes: [0xFF, 0xFF, 0xFF, 0xFF]))
        }
        let small = try makeChannel(limit: 4_096)
        #expect(throws: FrameError.oversize(length: 4_097, limit: 4_096)) {
            try small.writeInbound(ByteBuffer(bytes: [0x00, 0x00, 0x10, 0x01, 0x7B]))
        }
    }

    @Test("an undecodable body is passed on as an error value; the stream continues")
    func undecodable() throws {
        let channel = try makeChannel()
        let junk = Array("{\"type\":\"teleport\"}".utf8)
        let next = try FrameCodec().encode(.ping(nonce: 2))
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, UInt8(junk.count)] + junk + next))
        guard case .undecodable(.unknownType("teleport")) = try channel.readInbound(as: InboundFrame.self) else {
            Issue.record("expected an unknown-type error")
            return
        }
        guard case .message(.ping(2)) = try channel.readInbound(as: InboundFrame.self) else {
            Issue.record("expected the next frame")
            return
        }
    }
}
