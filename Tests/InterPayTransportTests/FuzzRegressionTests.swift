import Foundation
import InterPayCore
import InterPayTestSupport
import InterPayTransport
import NIOCore
import NIOEmbedded
import Testing

/// Replays the inputs that once failed FuzzFrames (`Fuzz/Regressions/frames`) with its main checks, without libFuzzer.
@Suite("Frame fuzz regressions", .tearsDown)
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions/frames")

    static func inputs() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test("every decoded message round-trips and every answer is a valid frame", arguments: try inputs())
    func replay(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(name)))
        let codec = FrameCodec()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder(codec: codec)))
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        } catch is FrameError {
            // An oversize prefix ends the stream; the frames before it are still checked below.
        }
        while let frame = try channel.readInbound(as: InboundFrame.self) {
            let message: PaymentMessage
            switch frame {
            case .message(let decoded): message = decoded
            case .undecodable(let undecodable):
                guard let answer = undecodable.answer else {
                    #expect(undecodable.header.type == "error")
                    continue
                }
                message = answer
            }
            let encoded = try codec.encode(message)
            #expect(try codec.decode(encoded) == message, "\(name): \(message)")
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }
}
