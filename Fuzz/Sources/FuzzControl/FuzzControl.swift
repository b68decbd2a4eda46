// libFuzzer target for the control socket: arbitrary bytes as what a client writes, split into lines by the
// server's `ControlLineDecoder` (fed whole and in small chunks) and each line read as the server reads it
// (`ControlRequestLine`: the JSON text parser, then JSON-RPC request validation). It checks that
// - nothing crashes, and the lines equal a plain reference split (limit, `\r\n`, unterminated last line);
// - a valid request survives its JSON form, and an error response reads back as itself;
// - any JSON the parser accepts prints as compact text that parses to an equal value and prints the same again.
// A violated property aborts with a message, which libFuzzer reports as a crash and saves as an artifact.

import NIOCore
import NIOEmbedded

@testable import InterPayControl
@testable import InterPayContract

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControl(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let expected = referenceLines(bytes)
    let whole = decodeLines(bytes, chunkSize: max(bytes.count, 1))
    guard whole == expected else { fail("lines differ from the reference:\nexpected: \(expected)\ngot:      \(whole)") }
    let chunked = decodeLines(bytes, chunkSize: 1 + bytes.count % 5)
    guard chunked == expected else {
        fail("chunked lines differ from the reference:\nexpected: \(expected)\ngot:      \(chunked)")
    }
    for case .line(let line) in expected { checkLine(line) }
    return 0
}

/// A small line limit, so that inputs of libFuzzer's usual sizes reach the too-long path.
let maxLineLength = 512

/// A line as the decoder passes it on.
enum Line: Equatable, CustomStringConvertible {
    case line([UInt8])
    case tooLong

    var description: String {
        switch self {
        case .line(let bytes): "line(\(String(decoding: bytes, as: UTF8.self).debugDescription))"
        case .tooLong: "tooLong"
        }
    }
}

/// The lines `bytes` should give: split at `\n`, one `\r` before it dropped, an unterminated last line delivered,
/// and nothing after the first line longer than the limit.
func referenceLines(_ bytes: [UInt8]) -> [Line] {
    func strip(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line.last == UInt8(ascii: "\r") ? line.dropLast() : line
    }
    var lines: [Line] = []
    var rest = bytes[...]
    while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
        let line = strip(rest[..<newline])
        guard line.count <= maxLineLength else { return lines + [.tooLong] }
        lines.append(.line(Array(line)))
        rest = rest[(newline + 1)...]
    }
    if rest.isEmpty { return lines }
    let line = strip(rest)
    return lines + [line.count <= maxLineLength ? .line(Array(line)) : .tooLong]
}

/// Collects what `ControlLineDecoder` passes on.
final class LineCollector: ChannelInboundHandler {
    typealias InboundIn = ControlLine

    var lines: [Line] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .line(let buffer): lines.append(.line(Array(buffer.readableBytesView)))
        case .tooLong: lines.append(.tooLong)
        }
    }
}

/// Feeds `bytes` to a `ControlLineDecoder` on an embedded channel in chunks of `chunkSize`, then closes the input.
func decodeLines(_ bytes: [UInt8], chunkSize: Int) -> [Line] {
    let channel = EmbeddedChannel()
    let collector = LineCollector()
    do {
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(ControlLineDecoder(maxLength: maxLineLength)))
        try channel.pipeline.syncOperations.addHandler(collector)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunkSize, bytes.count)
            try channel.writeInbound(ByteBuffer(bytes: bytes[offset..<end]))
            offset = end
        }
        _ = try channel.finish(acceptAlreadyClosed: true)
    } catch {
        fail("the embedded channel failed: \(error)")
    }
    return collector.lines
}

/// One line as the server reads it.
func checkLine(_ line: [UInt8]) {
    switch ControlRequestLine(parsing: line) {
    case .blank:
        guard line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { fail("not blank: \(line)") }
    case .request(let request):
        guard (try? RPCRequest(validating: request.jsonValue)) == request else {
            fail("a request does not survive its JSON form: \(request)")
        }
    case .invalid(let response):
        guard response.error != nil else { fail("an invalid line is answered without an error") }
        checkJSONText(response.jsonValue)
        guard let parsed = try? JSONValue(parsing: response.jsonValue.jsonBytes), RPCResponse(parsed) == response else {
            fail("an error response does not read back: \(response.jsonValue.jsonText)")
        }
    }
    if let value = try? JSONValue(parsing: line) { checkJSONText(value) }
}

/// Compact text parses back to an equal value and is a fixed point.
func checkJSONText(_ value: JSONValue) {
    let text = value.jsonBytes
    let again: JSONValue
    do {
        again = try JSONValue(parsing: text)
    } catch {
        fail("compact text does not parse: \(error)\n\(value.jsonText)")
    }
    guard again == value else { fail("text round trip changed the value:\n\(value)\n\(again)") }
    guard again.jsonBytes == text else { fail("compact text is not canonical: \(value.jsonText)") }
}

/// Stops the run: libFuzzer saves the input as a crash artifact.
func fail(_ message: String) -> Never {
    fatalError("FuzzControl: \(message)")
}
