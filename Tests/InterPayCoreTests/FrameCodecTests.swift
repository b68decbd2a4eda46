import Foundation
import InterPayCore
import Testing

@Suite("Frame codec")
struct FrameCodecTests {
    static let codec = FrameCodec()

    /// One frame of every type, optional fields both present and absent.
    static func everyFrame() throws -> [PaymentMessage] {
        let payment = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 1_795_000_900))
        let bare = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 60), memo: "", category: nil)
        let message = Fixtures.fixedUUID(2)
        return [
            .hello(
                .init(
                    minVersion: 1, maxVersion: 1, name: "Alice's laptop", capabilities: ["payments"],
                    agent: "interpayd/0.1.0")),
            .hello(.init(minVersion: 1, maxVersion: 3, name: "Ölé ☕", capabilities: [], agent: "")),
            .request(.init(messageID: message, payment: payment)),
            .request(.init(messageID: message, payment: bare)),
            .cancel(.init(messageID: message, paymentID: payment.id)),
            .accept(.init(messageID: message, paymentID: payment.id)),
            .reject(.init(messageID: message, paymentID: payment.id, reason: "not me")),
            .reject(.init(messageID: message, paymentID: payment.id, reason: nil)),
            .ack(.init(ackedID: message, paymentID: payment.id, state: .accepted, reasonCode: nil)),
            .ack(.init(ackedID: message, paymentID: payment.id, state: .cancelled, reasonCode: .alreadyCancelled)),
            .error(.init(code: .unsupportedVersion, message: "no common version", ref: nil)),
            .error(.init(code: .unknownPayment, message: "unknown payment", ref: message)),
            .ping(nonce: 42), .pong(nonce: UInt64(Int64.max)), .close(reason: "shutting down"),
            .pair(.init(pairingID: message, step: .reveal, value: [UInt8](repeating: 0xA5, count: 32))),
            .pair(.init(abort: message, reason: "too many wrong verification codes")),
            .paid(.init(messageID: message, paymentID: payment.id, method: .transfer, reference: "SPEI 0042")),
            .paid(.init(messageID: message, paymentID: payment.id, method: nil, reference: nil)),
            .settle(.init(messageID: message, paymentID: payment.id, receipt: "{\"type\":\"interpay-receipt\"}")),
            .settle(.init(messageID: message, paymentID: payment.id, receipt: nil)),
            .refund(
                .init(
                    messageID: message, paymentID: Fixtures.fixedUUID(9), refundOf: payment.id,
                    amount: payment.amount, memo: "returned", createdAt: payment.createdAt,
                    receipt: "{\"kind\":\"refund\"}")),
            .refund(
                .init(
                    messageID: message, paymentID: Fixtures.fixedUUID(9), refundOf: payment.id,
                    amount: payment.amount, memo: "", createdAt: payment.createdAt, receipt: nil)),
            .ack(.init(ackedID: message, paymentID: payment.id, state: .settled, reasonCode: nil)),
            .series(
                .init(
                    action: .offer, messageID: message, seriesID: Fixtures.fixedUUID(3),
                    offer: try SeriesOffer(
                        payee: Fixtures.payee, payer: Fixtures.payer, amount: payment.amount, period: .month,
                        start: Timestamp(secondsSince1970: 1_795_000_000), count: 12, timeZone: "Europe/Berlin",
                        periodSeconds: nil, memo: "gym", category: "sport"))),
            .series(.init(action: .approve, messageID: message, seriesID: Fixtures.fixedUUID(3), cap: payment.amount)),
            .series(.init(action: .end, messageID: message, seriesID: Fixtures.fixedUUID(3), reason: "moving out")),
            .series(.init(action: .ack, messageID: message, seriesID: Fixtures.fixedUUID(3), state: .ended)),
            .request(
                .init(
                    messageID: message,
                    payment: try PaymentRequest(
                        id: Fixtures.fixedUUID(4), payee: Fixtures.payee, payer: Fixtures.payer, amount: payment.amount,
                        memo: "gym", category: nil, createdAt: payment.createdAt, expiresAt: payment.expiresAt,
                        series: SeriesLink(seriesID: Fixtures.fixedUUID(3), index: 7)))),
        ]
    }

    @Test("every frame type survives encode → decode, and encoding is canonical")
    func roundTrip() throws {
        let frames = try Self.everyFrame()
        #expect(Set(frames.map(\.type)) == Set(PaymentMessage.FrameType.allCases))
        for frame in frames {
            let bytes = try Self.codec.encode(frame)
            #expect(try Self.codec.decode(bytes) == frame)
            // Canonical: sorted keys, compact, and the same bytes again after a round trip.
            #expect(try Self.codec.encode(Self.codec.decode(bytes)) == bytes)
            let body = String(decoding: bytes.dropFirst(4), as: UTF8.self)
            #expect(!body.contains(" :") && !body.contains(", "))
            let length = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            #expect(length == bytes.count - 4)
        }
    }

    @Test("a frame's UUIDs are written in lower case and read in either case; other text is an invalid field")
    func wireUUIDs() throws {
        let id = try #require(UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000ABCD"))
        let body = String(
            decoding: try Self.codec.encodeBody(.accept(.init(messageID: id, paymentID: id))), as: UTF8.self)
        #expect(
            body == #"{"messageID":"a1b2c3d4-0000-4000-8000-00000000abcd","#
                + #""paymentID":"a1b2c3d4-0000-4000-8000-00000000abcd","type":"accept"}"#)
        let upper = body.replacingOccurrences(of: "a1b2c3d4-0000-4000-8000-00000000abcd", with: id.uuidString)
        #expect(try Self.codec.decodeBody(Array(upper.utf8)) == .accept(.init(messageID: id, paymentID: id)))
        let broken = body.replacingOccurrences(of: "00000000abcd\",\"type", with: "0000000abcd\",\"type")
        #expect(
            throws: FrameError.invalidField("paymentID", detail: "Attempted to decode UUID from invalid UUID string.")
        ) {
            try Self.codec.decodeBody(Array(broken.utf8))
        }
    }

    @Test(
        "an object with a member name twice is invalid-json, also when the names differ only in escapes",
        arguments: [
            #"{"type":"ping","nonce":1,"nonce":2}"#,
            #"{"type":"ping","nonce":1,"non\u0063e":2}"#,
            #"{"type":"ping","type":"ping","nonce":1}"#,
            #"{"type":"ack","ackedID":"6be2017a-666d-4920-9eb1-81b0ef6a6207","paymentID":"6be2017a-666d-4920-9eb1-81b0ef6a6207","state":"pending","x":{"a":1,"a":2}}"#,
        ])
    func duplicateNames(body: String) {
        let bytes = Array(body.utf8)
        #expect(throws: FrameError.self) { try Self.codec.decodeBody(bytes) }
        do {
            _ = try Self.codec.decodeBody(bytes)
        } catch {
            guard case .invalidJSON(let reason) = error else {
                Issue.record("expected invalid-json, got \(error)")
                return
            }
            #expect(reason.contains("duplicate"))
        }
    }

    @Test("the same name in different objects, in strings and in arrays is no duplicate")
    func noDuplicate() throws {
        let body =
            #"{"type":"hello","minVersion":1,"maxVersion":1,"name":"\"name\", \"name\"","capabilities":["a","a"],"agent":"x","ext":{"name":1,"list":[{"k":1},{"k":2}]}}"#
        #expect(try Self.codec.decodeBody(Array(body.utf8)).type == .hello)
    }

    @Test("the header of a body Foundation cannot parse is still read: 1e400, invalid UTF-8; not from an array")
    func lenientHeader() {
        let id = "6be2017a-666d-4920-9eb1-81b0ef6a6207"
        let huge = #"{"payment":{"type":"x","amount":{"minorUnits":1e400}},"type":"request","messageID":"\#(id)"}"#
        #expect(
            FrameHeader(lenientlyReading: Array(huge.utf8))
                == FrameHeader(type: "request", messageID: UUID(uuidString: id)))
        let badUTF8 =
            Array(#"{"type":"request","messageID":"\#(id)","memo":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        #expect(FrameHeader(lenientlyReading: badUTF8) == FrameHeader(type: "request", messageID: UUID(uuidString: id)))
        #expect(
            FrameHeader(lenientlyReading: Array(#"["type","request"]"#.utf8)) == FrameHeader(type: nil, messageID: nil))
        #expect(
            FrameHeader(lenientlyReading: Array(#"{"type":1,"x":"request"}"#.utf8))
                == FrameHeader(type: nil, messageID: nil))
    }

    @Test("the length prefix is checked before anything is buffered")
    func oversizeFromPrefix() throws {
        #expect(throws: FrameError.oversize(length: 0xFFFF_FFFF, limit: 65_536)) {
            try Self.codec.bodyLength(in: [0xFF, 0xFF, 0xFF, 0xFF])
        }
        #expect(throws: FrameError.oversize(length: 65_537, limit: 65_536)) {
            try Self.codec.decode([0x00, 0x01, 0x00, 0x01])
        }
        let small = FrameCodec(maxFrameSize: 100)
        #expect(throws: FrameError.oversize(length: 101, limit: 100)) { try small.bodyLength(in: [0, 0, 0, 101]) }
        #expect(throws: Never.self) { _ = try small.bodyLength(in: [0, 0, 0, 100]) }
        #expect(try Self.codec.bodyLength(in: [0, 0, 1]) == nil)
    }

    @Test("truncated input is reported, not waited for")
    func truncated() throws {
        let bytes = try Self.codec.encode(.ping(nonce: 1))
        #expect(throws: FrameError.truncated(expected: 4, available: 2)) { try Self.codec.decode(bytes.prefix(2)) }
        #expect(throws: FrameError.truncated(expected: bytes.count - 4, available: bytes.count - 5)) {
            try Self.codec.decode(bytes.dropLast())
        }
    }

    @Test("encoding refuses a frame over the limit")
    func encodeLimit() throws {
        let small = FrameCodec(maxFrameSize: 32)
        #expect(throws: FrameEncodingError.self) {
            try small.encode(.close(reason: String(repeating: "x", count: 100)))
        }
    }

    @Test("a frame's optional text is left out when nil, refused as null, and checked when present")
    func optionalTexts() throws {
        let id = Fixtures.fixedUUID(2)
        let body = String(
            decoding: try Self.codec.encodeBody(.reject(.init(messageID: id, paymentID: id, reason: nil))),
            as: UTF8.self)
        #expect(!body.contains("reason"))
        let null = body.replacingOccurrences(of: #""type":"reject""#, with: #""reason":null,"type":"reject""#)
        #expect(throws: FrameError.self) { try Self.codec.decodeBody(Array(null.utf8)) }
        let receipt = String(repeating: "x", count: Limits.maxReceiptSize + 1)
        let settle = String(
            decoding: try Self.codec.encodeBody(.settle(.init(messageID: id, paymentID: id, receipt: receipt))),
            as: UTF8.self)
        #expect(
            throws: FrameError.invalidField("receipt", detail: "a receipt is at most \(Limits.maxReceiptSize) bytes")
        ) {
            try Self.codec.decodeBody(Array(settle.utf8))
        }
    }

    @Test(
        "decoding errors are typed",
        arguments: [
            (#"{"type":"ping"}"#, "missing-field"),
            (#"{"nonce":1}"#, "missing-field"),
            (#"{"type":"teleport"}"#, "unknown-type"),
            (#"{"type":"ping","nonce":"1"}"#, "invalid-field"),
            (#"{"type":"ping","nonce":-1}"#, "invalid-field"),
            (#"[1,2]"#, "invalid-json"),
            (#"{"type":"ping","#, "invalid-json"),
            (#"{"type":"ack","ackedID":"x","paymentID":"y","state":"done"}"#, "invalid-field"),
            (
                #"{"type":"hello","minVersion":2,"maxVersion":1,"name":"a","capabilities":[],"agent":""}"#,
                "invalid-field"
            ),
            (#"{"type":"ping","nonce":1,"future":{"x":[1]}}"#, "ok"),
        ])
    func typedErrors(json: String, code: String) {
        do {
            _ = try Self.codec.decodeBody(Array(json.utf8))
            #expect(code == "ok")
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test("a fractional or out-of-range number names its field, not just \"(number)\"")
    func numberFieldNamed() throws {
        let payment = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 1_795_000_900))
        let body = String(
            decoding: try Self.codec.encodeBody(.request(.init(messageID: Fixtures.fixedUUID(3), payment: payment))),
            as: UTF8.self)
        let fractional = body.replacingOccurrences(of: "\"minorUnits\":1250", with: "\"minorUnits\":12.5")
        #expect(fractional != body)
        for (json, field) in [
            (fractional, "payment.amount.minorUnits"), (#"{"type":"ping","nonce":1.5}"#, "nonce"),
            (#"{"type":"ping","nonce":-1}"#, "nonce"),
        ] {
            do {
                _ = try Self.codec.decodeBody(Array(json.utf8))
                Issue.record("accepted: \(json)")
            } catch {
                #expect(error.code == "invalid-field")
                #expect(error.description.contains("'\(field)'"), "\(error)")
            }
        }
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        #expect(throws: FrameError.invalidUTF8) { try Self.codec.decodeBody([0x7B, 0xFF, 0xFE, 0x7D]) }
    }

    /// What `nextFrame(in:)` reads at the front of `bytes`, as (kind, length) for comparison.
    static func next(_ bytes: [UInt8], codec: FrameCodec = codec) throws -> (String, Int)? {
        let read = try bytes.withUnsafeBytes { buffer in try codec.nextFrame(in: buffer) }
        return read.map { read in
            switch read.frame {
            case .message(let message): ("message \(message)", read.length)
            case .undecodable(let frame): ("undecodable \(frame.error.code) \(frame.header.type ?? "-")", read.length)
            }
        }
    }

    @Test("a stream's next frame: nothing until complete, then the frame and its length, the bytes after it left")
    func nextFrameOfAStream() throws {
        let ping = try Self.codec.encode(.ping(nonce: 7))
        for cut in 0..<ping.count {
            #expect(try Self.next(Array(ping.prefix(cut))) == nil, "\(cut) bytes")
        }
        let read = try #require(try Self.next(ping + Self.codec.encode(.close(reason: "bye"))))
        #expect(read.0 == "message \(PaymentMessage.ping(nonce: 7))")
        #expect(read.1 == ping.count)
    }

    @Test("a stream's broken frame is passed on with its header, a zero length takes 4 bytes, an oversize one throws")
    func nextFrameUndecodable() throws {
        let body = Array(#"{"type":"bogus","messageID":"x"}"#.utf8)
        let frame = [0, 0, 0, UInt8(body.count)] + body
        #expect(try Self.next(frame + [0, 0])?.0 == "undecodable unknown-type bogus")
        #expect(try Self.next(frame)?.1 == frame.count)
        let empty = try #require(try Self.next([0, 0, 0, 0, 0, 0]))
        #expect(empty.1 == FrameCodec.prefixLength)
        #expect(empty.0.hasPrefix("undecodable "))
        #expect(throws: FrameError.oversize(length: 101, limit: 100)) {
            try Self.next([0, 0, 0, 101], codec: FrameCodec(maxFrameSize: 100))
        }
    }
}
