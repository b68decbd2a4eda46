import Foundation
import InterPayCore
import InterPayTestSupport
import NIOSSL
import Testing

@testable import InterPayTransport

/// The peer ID is the hash of the key as the certificate encodes it, and only the canonical P-256 encoding is
/// accepted (PROTOCOL.md §3.2, §3.3; `protocol/vectors/certificates.json`).
@Suite("Certificate keys", .tearsDown)
struct CertificateKeyTests {
    struct Vector: Decodable {
        var name: String
        var certificate: String
        var peerID: String?
        var spkiHex: String?
        var error: String?
    }

    struct File: Decodable {
        var vectors: [Vector]
    }

    static let vectors: [Vector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "protocol/vectors/certificates.json")
        // A missing or broken file leaves the list empty, which `coverage` reports as a failure.
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return file.vectors
    }()

    @Test("the vector file covers a canonical key and both refusals")
    func coverage() {
        #expect(Set(Self.vectors.map(\.name)) == ["canonical-p256", "compressed-point", "explicit-parameters"])
    }

    @Test("each certificate gives its peer ID, or is refused", arguments: vectors)
    func vector(_ vector: Vector) throws {
        let certificate = try NIOSSLCertificate(bytes: Array(vector.certificate.utf8), format: .pem)
        if let expected = vector.peerID {
            let spki = try CertificateKey.canonicalSPKI(of: certificate)
            #expect(spki.map { String(format: "%02x", $0) }.joined() == vector.spkiHex)
            #expect(try PeerID(certificate: certificate).description == expected)
        } else {
            #expect(throws: CertificateKey.Refusal.self) { try CertificateKey.canonicalSPKI(of: certificate) }
            #expect(throws: (any Error).self) { try PeerID(certificate: certificate) }
        }
    }

    @Test("a compressed point is refused although the TLS library's re-encoding of it looks canonical")
    func reencodingHidesTheForm() throws {
        let vector = try #require(Self.vectors.first { $0.name == "compressed-point" })
        let certificate = try NIOSSLCertificate(bytes: Array(vector.certificate.utf8), format: .pem)
        let reencoded = try certificate.extractPublicKey().toSPKIBytes()
        let der = try certificate.toDERBytes()
        let raw = try CertificateKey.rawSPKI(certificateDER: der)
        #expect(reencoded.count == 91 && raw.count == 59, "re-encoded \(reencoded.count), raw \(raw.count)")
        #expect(throws: CertificateKey.Refusal.self) { try CertificateKey.canonicalSPKI(certificateDER: der) }
    }

    @Test("our own certificates are canonical, and their ID is the identity's")
    func ownIdentity() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appending(path: "ipc-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let identity = try Identity.loadOrCreate(in: directory)
        #expect(try PeerID(certificate: identity.certificate) == identity.peerID)
    }

    @Test("garbage is unreadable, not a crash")
    func garbage() {
        #expect(throws: CertificateKey.Refusal.self) { try CertificateKey.rawSPKI(certificateDER: [0x30, 0x03, 0x02]) }
        #expect(throws: CertificateKey.Refusal.self) { try CertificateKey.rawSPKI(certificateDER: []) }
    }
}
