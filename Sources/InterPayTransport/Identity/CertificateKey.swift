import Crypto
import Foundation
import InterPayCore
import NIOSSL
import SwiftASN1

/// The public key of a peer's certificate, as the certificate carries it (PROTOCOL.md §3.2, §3.3).
///
/// The peer ID is the SHA-256 of the SubjectPublicKeyInfo *bytes in the certificate*. Asking BoringSSL for the key
/// (`extractPublicKey().toSPKIBytes()`) re-encodes it, so a certificate with a compressed point or explicit curve
/// parameters would hash to the ID of its canonical twin and the canonical-form rule could never fail. These bytes
/// are read from the certificate's DER instead, and refused unless they are exactly the canonical encoding of a
/// P-256 key (named curve, uncompressed point): what `P256.Signing.PublicKey.derRepresentation` produces.
enum CertificateKey {
    /// Why a certificate's key is refused.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        /// The DER could not be read down to the SubjectPublicKeyInfo.
        case unreadable(String)
        /// The key is not P-256.
        case notP256
        /// A P-256 key, but not in the canonical form (compressed point, explicit parameters, …).
        case notCanonical

        var description: String {
            switch self {
            case .unreadable(let reason): "the certificate cannot be read: \(reason)"
            case .notP256: "the certificate's key is not a P-256 key in the canonical encoding"
            case .notCanonical: "the certificate's P-256 key is not in its canonical form (uncompressed, named curve)"
            }
        }
    }

    /// The SubjectPublicKeyInfo of `certificate`, byte for byte as encoded in it, if it is canonical P-256.
    static func canonicalSPKI(of certificate: NIOSSLCertificate) throws(Refusal) -> [UInt8] {
        let der: [UInt8]
        do { der = try certificate.toDERBytes() } catch { throw .unreadable("\(error)") }
        return try canonicalSPKI(certificateDER: der)
    }

    /// The SubjectPublicKeyInfo in a DER certificate, if it is canonical P-256.
    static func canonicalSPKI(certificateDER der: [UInt8]) throws(Refusal) -> [UInt8] {
        let spki = try rawSPKI(certificateDER: der)
        let key: P256.Signing.PublicKey
        do { key = try P256.Signing.PublicKey(derRepresentation: spki) } catch { throw .notP256 }
        guard Array(key.derRepresentation) == spki else { throw .notCanonical }
        return spki
    }

    /// `Certificate.tbsCertificate.subjectPublicKeyInfo`, as encoded (RFC 5280 §4.1): the seventh element of the
    /// TBSCertificate sequence, or the sixth when the optional `[0] version` is absent.
    static func rawSPKI(certificateDER der: [UInt8]) throws(Refusal) -> [UInt8] {
        do {
            let root = try DER.parse(der)
            guard case .constructed(let certificate) = root.content,
                let tbs = certificate.first(where: { _ in true }),
                case .constructed(let fields) = tbs.content
            else { throw Refusal.unreadable("no TBSCertificate sequence") }
            var elements = Array(fields)
            if let first = elements.first, first.identifier.tagClass == .contextSpecific,
                first.identifier.tagNumber == 0
            {
                elements.removeFirst()  // [0] EXPLICIT version
            }
            // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
            guard elements.count > 5, elements[5].identifier == .sequence else {
                throw Refusal.unreadable("no SubjectPublicKeyInfo")
            }
            return Array(elements[5].encodedBytes)
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw .unreadable("\(error)")
        }
    }
}
