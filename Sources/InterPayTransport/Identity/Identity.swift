import Crypto
public import Foundation
public import InterPayCore
public import NIOSSL
import SwiftASN1
import X509

/// This daemon's long-lived identity: a P-256 key and a self-signed certificate, kept in the state directory.
///
/// The peer ID is the SHA-256 of the key's DER SubjectPublicKeyInfo, so it survives restarts and changes only when
/// the key file does. Files are created 0600 in a 0700 directory.
public struct Identity: Sendable {
    /// This daemon's peer ID.
    public let peerID: PeerID
    /// The certificate presented in TLS.
    public let certificate: NIOSSLCertificate
    /// The private key used in TLS.
    public let privateKey: NIOSSLPrivateKey
    /// The same key, for signing receipts (the key the peer ID is the hash of).
    public let receiptSigner: ReceiptSigner

    /// File names inside the state directory.
    public static let keyFileName = "identity-key.pem"
    /// File name of the certificate inside the state directory.
    public static let certificateFileName = "identity-cert.pem"

    /// Loads the identity from `directory`, creating the directory, key and certificate on first use.
    public static func loadOrCreate(in directory: URL) throws(TransportError) -> Identity {
        let fileManager = FileManager.default
        let keyURL = directory.appending(path: keyFileName)
        let certificateURL = directory.appending(path: certificateFileName)
        do {
            try fileManager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try fileManager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw .identityStorage(path: directory.path, reason: String(describing: error))
        }

        let key =
            fileManager.fileExists(atPath: keyURL.path) ? try loadKey(at: keyURL) : try createKey(at: keyURL)
        let peerID = PeerID(subjectPublicKeyInfoDER: key.publicKey.derRepresentation)

        // Reuse the stored certificate when it still belongs to the key; otherwise make a new one.
        var certificatePEM: String?
        if let stored = try? String(contentsOf: certificateURL, encoding: .utf8),
            let parsed = try? Certificate(pemEncoded: stored),
            parsed.publicKey == Certificate.PublicKey(key.publicKey)
        {
            certificatePEM = stored
        }
        if certificatePEM == nil {
            let pem = try makeCertificatePEM(for: key, peerID: peerID)
            try write(pem, to: certificateURL)
            certificatePEM = pem
        }
        do {
            let certificate = try NIOSSLCertificate(bytes: Array((certificatePEM ?? "").utf8), format: .pem)
            let privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
            let signer = try ReceiptSigner(rawPrivateKey: key.rawRepresentation)
            return Identity(
                peerID: peerID, certificate: certificate, privateKey: privateKey, receiptSigner: signer)
        } catch {
            throw .tlsSetup(String(describing: error))
        }
    }

    /// A self-signed certificate for `key`, valid from an hour ago for 20 years; its subject names the short ID.
    private static func makeCertificatePEM(
        for key: P256.Signing.PrivateKey, peerID: PeerID
    ) throws(TransportError)
        -> String
    {
        do {
            let name = try DistinguishedName { CommonName("interpay \(peerID.shortDescription)") }
            let now = Date()
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3_600),
                notValidAfter: now.addingTimeInterval(20 * 365 * 86_400),
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    KeyUsage(digitalSignature: true)
                },
                issuerPrivateKey: Certificate.PrivateKey(key))
            return try certificate.serializeAsPEM().pemString
        } catch {
            throw .tlsSetup("cannot create the certificate: \(error)")
        }
    }

    private static func loadKey(at url: URL) throws(TransportError) -> P256.Signing.PrivateKey {
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: String(contentsOf: url, encoding: .utf8))
        } catch {
            throw .identityCorrupt(path: url.path, reason: String(describing: error))
        }
    }

    /// Creates the key file exactly once, even when two processes start on the same state directory at the same
    /// moment (a daemon and `interpayd --print-id`): the new key is written to a private temporary file and
    /// hard-linked into place, which fails if the file exists; the loser then uses the winner's key.
    private static func createKey(at url: URL) throws(TransportError) -> P256.Signing.PrivateKey {
        let candidate = P256.Signing.PrivateKey()
        let temporary = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).\(getpid()).new")
        try write(candidate.pemRepresentation, to: temporary)
        defer { unlink(temporary.path) }
        if link(temporary.path, url.path) == 0 { return candidate }
        let error = errno
        guard error == EEXIST else {
            throw .identityStorage(path: url.path, reason: String(cString: strerror(error)))
        }
        return try loadKey(at: url)
    }

    /// Writes `text` to `url` readable by the owner only.
    private static func write(_ text: String, to url: URL) throws(TransportError) {
        let created = FileManager.default.createFile(
            atPath: url.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        guard created else { throw .identityStorage(path: url.path, reason: "cannot create the file") }
    }
}

extension PeerID {
    /// The peer ID of the key in a TLS certificate: the SHA-256 of its SubjectPublicKeyInfo as the certificate
    /// encodes it, which must be canonical P-256 (`CertificateKey`).
    public init(certificate: NIOSSLCertificate) throws {
        self.init(subjectPublicKeyInfoDER: try CertificateKey.canonicalSPKI(of: certificate))
    }
}
