import Crypto
import Foundation
package import InterPayCore
package import Logging
import NIOCore
package import NIOSSL

/// Verifies the peer's TLS certificate the InterPay way: no certificate authorities, the key is the identity.
///
/// A certificate is accepted as proof of its key (TLS has already checked that the peer holds the private key) if
/// that key, as the certificate encodes it, is P-256 in its canonical form (`CertificateKey`, PROTOCOL.md §3.3);
/// when the ID to expect is known (the dialing side), those bytes must hash to it.
package struct PeerVerifier: Sendable {
    let expected: PeerID?
    /// The remote host's address, without its port: the log budget of its lines (a host refused again and again
    /// costs the log a few lines and a count, like any peer's).
    let address: String
    let logger: Logger
    /// Told the ID of a key that was refused because it is not the expected one.
    var onMismatch: @Sendable (PeerID) -> Void

    /// A verifier expecting `expected` (when known) of the host at `address`.
    package init(
        expected: PeerID?, address: String, logger: Logger, onMismatch: @escaping @Sendable (PeerID) -> Void = { _ in }
    ) {
        self.expected = expected
        self.address = address
        self.logger = logger
        self.onMismatch = onMismatch
    }

    /// The callback NIOSSL calls with the peer's certificates, in place of chain validation.
    package var callback: NIOSSLCustomVerificationCallback {
        { [expected, address, logger, onMismatch] certificates, promise in
            guard let leaf = certificates.first else {
                logger.warning("peer sent no certificate; connection refused", metadata: ["address": "\(address)"])
                promise.succeed(.failed)
                return
            }
            let spki: [UInt8]
            do {
                spki = try CertificateKey.canonicalSPKI(of: leaf)
            } catch {
                logger.warning("peer certificate refused: \(error)", metadata: ["address": "\(address)"])
                promise.succeed(.failed)
                return
            }
            let actual = PeerID(subjectPublicKeyInfoDER: spki)
            if let expected, expected != actual {
                logger.warning(
                    "peer key does not match its advertised ID; connection refused",
                    metadata: ["expected": "\(expected)", "actual": "\(actual)", "address": "\(address)"])
                onMismatch(actual)
                promise.succeed(.failed)
                return
            }
            promise.succeed(.certificateVerified)
        }
    }
}

extension TLSConfiguration {
    /// TLS 1.3 only, our certificate and key, the peer's certificate required and checked by `PeerVerifier`.
    package static func interPay(identity: Identity, server: Bool) -> TLSConfiguration {
        var configuration =
            server
            ? TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.privateKey))
            : TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = [.certificate(identity.certificate)]
        configuration.privateKey = .privateKey(identity.privateKey)
        configuration.minimumTLSVersion = .tlsv13
        configuration.maximumTLSVersion = .tlsv13
        configuration.signingSignatureAlgorithms = [.ecdsaSecp256R1Sha256]
        configuration.verifySignatureAlgorithms = [.ecdsaSecp256R1Sha256]
        // Verification on (so that the server asks for and requires a client certificate); the custom callback
        // replaces chain validation, since identities are keys, not names signed by an authority.
        configuration.certificateVerification = .noHostnameVerification
        // No certificate authority is consulted (the callback decides), so none is loaded: the daemon does not
        // depend on the system's CA bundle.
        configuration.trustRoots = .certificates([])
        // A closing connection waits this long for the peer's close_notify: a peer that never answers (an evicted
        // or flooding one) must not hold the descriptor for long.
        configuration.shutdownTimeout = .seconds(1)
        return configuration
    }
}
