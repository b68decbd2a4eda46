import Foundation
import InterPayCore
import Testing

/// Runs every test vector of `protocol/vectors` through the codec.
@Suite("Protocol test vectors")
struct ProtocolVectorTests {
    struct ValidVector: Decodable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let ignoresUnknown: Bool?
        let decodeOnly: Bool?
        var testDescription: String { name }
    }

    struct InvalidVector: Decodable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let error: String
        let maxFrameSize: Int?
        var testDescription: String { name }
    }

    static func load<T: Decodable>(_ file: String) throws -> [T] {
        let url = RepositoryFiles.root.appending(path: "protocol/vectors/\(file)")
        return try JSONDecoder().decode([T].self, from: Data(contentsOf: url))
    }

    static let valid: [ValidVector] = (try? load("valid.json")) ?? []
    static let invalid: [InvalidVector] = (try? load("invalid.json")) ?? []

    static func bytes(_ hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        try #require(digits.count % 2 == 0, "odd number of hex digits")
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            try #require(UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16))
        }
    }

    @Test("the vector files load and cover every frame type and every error class")
    func coverage() throws {
        let valid: [ValidVector] = try Self.load("valid.json")
        let invalid: [InvalidVector] = try Self.load("invalid.json")
        let codec = FrameCodec()
        let types = Set(try valid.map { try codec.decode(Self.bytes($0.hex)).type })
        #expect(types == Set(PaymentMessage.FrameType.allCases))
        let errors = Set(invalid.map(\.error))
        #expect(
            errors == [
                "oversize", "truncated", "invalid-utf8", "invalid-json", "unknown-type", "missing-field",
                "invalid-field",
            ])
    }

    @Test("every valid vector decodes, and re-encodes to the same canonical bytes", arguments: valid)
    func validVector(_ vector: ValidVector) throws {
        let codec = FrameCodec()
        let bytes = try Self.bytes(vector.hex)
        let message = try codec.decode(bytes)
        let reencoded = try codec.encode(message)
        if vector.ignoresUnknown == true {
            // The unknown field is dropped; what remains means the same.
            #expect(try codec.decode(reencoded) == message)
            #expect(reencoded.count < bytes.count)
        } else if vector.decodeOnly == true {
            // Accepted although not canonical (e.g. upper-case UUIDs); re-encoding gives the canonical form.
            #expect(try codec.decode(reencoded) == message)
            #expect(reencoded != bytes)
        } else {
            #expect(reencoded == bytes, "re-encoded: \(String(decoding: reencoded.dropFirst(4), as: UTF8.self))")
        }
    }

    @Test("a period's request ID in the vectors is the UUIDv5 the core derives from the series and period")
    func seriesInstanceID() throws {
        let vector = try #require(Self.valid.first { $0.name == "request-in-series" })
        guard case .request(let request) = try FrameCodec().decode(try Self.bytes(vector.hex)) else {
            Issue.record("request-in-series is not a request")
            return
        }
        let link = try #require(request.payment.series)
        #expect(link.index == 3)
        #expect(request.payment.id == SeriesMachine.instanceID(series: link.seriesID, index: 3))
        #expect(request.messageID == SeriesMachine.instanceMessageID(series: link.seriesID, index: 3))
    }

    @Test("every invalid vector is refused with its expected error", arguments: invalid)
    func invalidVector(_ vector: InvalidVector) throws {
        let codec = FrameCodec(maxFrameSize: vector.maxFrameSize ?? Limits.maxFrameSize)
        let bytes = try Self.bytes(vector.hex)
        #expect {
            _ = try codec.decode(bytes)
        } throws: { error in
            (error as? FrameError)?.code == vector.error
        }
    }

    struct ReceiptVector: Decodable, CustomTestStringConvertible {
        let name: String
        let receipt: String
        let valid: Bool
        let error: String?
        var testDescription: String { name }
    }

    static let receipts: [ReceiptVector] = (try? load("receipts.json")) ?? []

    @Test("the receipt vectors load")
    func receiptCoverage() throws {
        let receipts: [ReceiptVector] = try Self.load("receipts.json")
        #expect(receipts.contains { $0.valid } && receipts.contains { !$0.valid })
    }

    @Test("every receipt vector verifies, or fails with its expected error", arguments: receipts)
    func receiptVector(_ vector: ReceiptVector) throws {
        do {
            let signed = try SignedReceipt(verifying: vector.receipt)
            #expect(vector.valid, "verified, but the vector says \(vector.error ?? "?")")
            #expect(signed.text == vector.receipt)
        } catch {
            let kind =
                switch error {
                case .malformed: "malformed"
                case .notCanonical: "not-canonical"
                case .invalidKey: "invalid-key"
                case .keyMismatch: "key-mismatch"
                case .badSignature: "bad-signature"
                case .signingFailed: "signing-failed"
                }
            #expect(!vector.valid && kind == vector.error, "\(error)")
        }
    }
}
