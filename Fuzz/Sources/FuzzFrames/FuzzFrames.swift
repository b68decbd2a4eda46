// libFuzzer target for the peer wire format: arbitrary bytes as one frame (`FrameCodec.decode`) and as a TCP stream
// read as the transport's `FrameDecoder` reads it (`FrameCodec.nextFrame(in:)` on the unread bytes), fed whole and in
// small chunks. It builds against InterPayCore alone, so its sanitizer build compiles neither NIO's TLS nor X.509.
// It checks that
// - decoding never crashes, and a chunked stream gives the same frames as the whole stream;
// - whatever decodes encodes again, decodes to an equal message, and encodes to the same (canonical) bytes;
// - the `error` frame that answers an undecodable frame (PROTOCOL.md §13.2) is itself a valid frame.
// A violated property aborts with a message, which libFuzzer reports as a crash and saves as an artifact.

import InterPayCore

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    checkSingleFrame(bytes)
    let whole = decodeStream(bytes, chunkSize: max(bytes.count, 1))
    // Small chunks split prefixes and bodies everywhere; larger ones for long inputs keep a run fast.
    let chunked = decodeStream(bytes, chunkSize: bytes.count <= 1024 ? 1 + bytes.count % 5 : 64 + bytes.count % 61)
    guard whole == chunked else {
        fail("chunked stream decoded differently:\nwhole:   \(whole)\nchunked: \(chunked)")
    }
    for outcome in whole {
        switch outcome {
        case .message(let message): checkRoundTrip(message)
        case .undecodable(let frame): checkAnswer(frame)
        case .failed: break
        }
    }
    return 0
}

/// The codec every check uses: the protocol's 64 KiB limit, as the daemon's default.
let codec = FrameCodec()

/// The whole input as exactly one frame.
func checkSingleFrame(_ bytes: [UInt8]) {
    do throws(FrameError) {
        checkRoundTrip(try codec.decode(bytes))
    } catch {
        _ = error.description
        // What the transport would answer if this body arrived in a complete frame.
        let body = bytes.dropFirst(FrameCodec.prefixLength)
        checkAnswer(UndecodableFrame(error: error, header: FrameHeader(lenientlyReading: body)))
    }
}

/// A decoded message must encode, decode to itself, and encode to the same bytes again.
func checkRoundTrip(_ message: PaymentMessage) {
    let frame: [UInt8]
    do {
        frame = try codec.encode(message)
    } catch {
        fail("a decoded message does not encode: \(error)\n\(message)")
    }
    let again: PaymentMessage
    do {
        again = try codec.decode(frame)
    } catch {
        fail("an encoded message does not decode: \(error)\n\(String(decoding: frame.dropFirst(4), as: UTF8.self))")
    }
    guard again == message else { fail("round trip changed the message:\n\(message)\n\(again)") }
    guard (try? codec.encode(again)) == frame else { fail("encoding is not canonical: \(message)") }
}

/// The answer to an undecodable frame is a valid frame, and only a broken `error` frame goes unanswered.
func checkAnswer(_ frame: UndecodableFrame) {
    guard let answer = frame.answer else {
        guard frame.header.type == "error" else { fail("no answer to \(frame.error) of type \(frame.header)") }
        return
    }
    checkRoundTrip(answer)
}

/// What the transport's decoder made of the stream, in order.
enum Outcome: Equatable, CustomStringConvertible {
    case message(PaymentMessage)
    case undecodable(UndecodableFrame)
    /// The decoder failed (an oversize prefix): the session would end here.
    case failed(String)

    static func == (lhs: Outcome, rhs: Outcome) -> Bool {
        switch (lhs, rhs) {
        case (.message(let left), .message(let right)): left == right
        case (.undecodable(let left), .undecodable(let right)): left.error == right.error && left.header == right.header
        case (.failed(let left), .failed(let right)): left == right
        default: false
        }
    }

    var description: String {
        switch self {
        case .message(let message): "message(\(message))"
        case .undecodable(let frame): "undecodable(\(frame.error), \(frame.header))"
        case .failed(let error): "failed(\(error))"
        }
    }
}

/// Feeds `bytes` to a stream reader in chunks of `chunkSize`, as a session's inbound buffer fills: after each chunk,
/// every complete frame at the front is taken, and what is left waits for the next chunk. Bytes left at the end are
/// an incomplete frame, dropped with the connection as the transport does.
func decodeStream(_ bytes: [UInt8], chunkSize: Int) -> [Outcome] {
    var outcomes: [Outcome] = []
    var unread: [UInt8] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + chunkSize, bytes.count)
        unread += bytes[offset..<end]
        offset = end
        var taken = 0
        while taken < unread.count {
            let next: (frame: InboundFrame, length: Int)?
            do {
                next = try unread.withUnsafeBytes { buffer in
                    try codec.nextFrame(in: UnsafeRawBufferPointer(rebasing: buffer[taken...]))
                }
            } catch {
                // An oversize prefix: the session would end here.
                outcomes.append(.failed(String(describing: error)))
                return outcomes
            }
            guard let (frame, length) = next else { break }
            guard length > 0, length <= unread.count - taken else { fail("a frame of \(length) bytes was read") }
            taken += length
            switch frame {
            case .message(let message): outcomes.append(.message(message))
            case .undecodable(let frame): outcomes.append(.undecodable(frame))
            }
        }
        unread.removeFirst(taken)
    }
    return outcomes
}

/// Stops the run: libFuzzer saves the input as a crash artifact.
func fail(_ message: String) -> Never {
    fatalError("FuzzFrames: \(message)")
}
