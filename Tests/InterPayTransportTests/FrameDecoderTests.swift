import Foundation
import InterPayCore
import InterPayTestSupport
import InterPayTransport
import NIOCore
import NIOEmbedded
import Testing

@Suite("Frame decoder on a channel", .tearsDown)
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
        guard case .undecodable(let frame) = try channel.readInbound(as: InboundFrame.self),
            case .unknownType("teleport") = frame.error
        else {
            Issue.record("expected an unknown-type error")
            return
        }
        #expect(frame.header == FrameHeader(type: "teleport", messageID: nil))
        guard case .message(.ping(2)) = try channel.readInbound(as: InboundFrame.self) else {
            Issue.record("expected the next frame")
            return
        }
    }

    @Test("an empty frame (length 0) is answered malformed-frame and the stream goes on (PROTOCOL.md §5.2 step 4)")
    func emptyFrame() throws {
        let channel = try makeChannel()
        let next = try FrameCodec().encode(.ping(nonce: 3))
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 0] + next))
        guard case .undecodable(let frame) = try channel.readInbound(as: InboundFrame.self),
            case .error(let answer)? = frame.answer
        else {
            Issue.record("expected an undecodable frame with an answer")
            return
        }
        #expect(answer.code == .malformedFrame && answer.ref == nil)
        guard case .message(.ping(3)) = try channel.readInbound(as: InboundFrame.self) else {
            Issue.record("expected the frame after the empty one")
            return
        }
    }

    @Test(
        "an undecodable frame gets unknown-type or malformed-frame, with ref when readable; a broken error frame none",
        arguments: [
            ("{\"type\":\"teleport\",\"messageID\":\"\(referenced.uuidString)\"}", "unknown-type", referenced),
            (
                "{\"type\":\"accept\",\"messageID\":\"\(referenced.uuidString)\",\"paymentID\":7}", "malformed-frame",
                referenced
            ),
            ("{\"type\":\"accept\",\"messageID\":\"not-a-uuid\"}", "malformed-frame", nil),
            ("[1,2,3]", "malformed-frame", nil),
            ("{\"type\":\"error\",\"code\":\"no-such-code\",\"message\":\"x\"}", nil, nil),
            ("{\"type\":\"error\"}", nil, nil),
        ] as [(String, String?, UUID?)])
    func answers(body: String, code: String?, ref: UUID?) throws {
        let channel = try makeChannel()
        let bytes = Array(body.utf8)
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, UInt8(bytes.count)] + bytes))
        guard case .undecodable(let frame) = try channel.readInbound(as: InboundFrame.self) else {
            Issue.record("expected an undecodable frame")
            return
        }
        switch frame.answer {
        case .error(let error)?:
            #expect(error.code.rawValue == code)
            #expect(error.ref == ref)
        case nil:
            #expect(code == nil, "a frame that needs an answer got none")
        case let other?:
            Issue.record("answered with \(other)")
        }
    }

    @Test("the answer to an unknown type made of combining marks is a valid frame (at most 200 code points)")
    func answerLimitCountsCodePoints() throws {
        // FuzzFrames' answer check fails on this input (Fuzz/Regressions/frames/unknown-type-combining-marks): 200
        // characters of "é" written as e + U+0301 are 400 code points, and the peer rejected the answer as malformed.
        let body = Array(#"{"type":"\#(String(repeating: "e\u{301}", count: 150))"}"#.utf8)
        let codec = FrameCodec()
        let frame = UndecodableFrame(
            error: try #require(throws: FrameError.self) { try codec.decodeBody(body) },
            header: FrameHeader(lenientlyReading: body))
        let answer = try #require(frame.answer)
        guard case .error(let error) = answer else {
            Issue.record("answered with \(answer)")
            return
        }
        #expect(error.code == .unknownType)
        #expect(error.message.unicodeScalars.count == Limits.maxReasonLength)
        #expect(try codec.decode(try codec.encode(answer)) == answer)
    }
}

private let referenced = UUID()
