import InterPayCore
import Logging
import NIOCore
import NIOSSL

/// Verifies the peer's TLS certificate the InterPay way: no certificate authorities, the key is the identity.
///
/// Any certificate is accepted as proof of its key (TLS has already checked that the peer holds the private key);
/// when the ID to expect is known (the dialing side), the key must hash to it.
struct PeerVerifier: Sendable {
    let expected: PeerID?
    let logger: Logger

    var callback: NIOSSLCustomVerificationCallback {
        { [expected, logger] certificates, promise in
            guard let leaf = certificates.first, let actual = try? PeerID(certificate: leaf) else {
                promise.succeed(.failed)
                return
            }
            if let expected, expected != actual {
                logger.warning(
                    "peer key does not match its advertised ID; connection refused",
                    metadata: ["expected": "\(expected)", "actual": "\(actual)"])
                promise.succeed(.failed)
                return
            }
            promise.succeed(.certificateVerified)
        }
    }
}

extension TLSConfiguration {
    /// TLS 1.3 only, our certificate and key, the peer's certificate required and checked by `PeerVerifier`.
    static func interPay(identity: Identity, server: Bool) -> TLSConfiguration {
        var configuration =
            server
            ? TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.privateKey))
            : TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = [.certificate(identity.certificate)]
        configuration.privateKey = .privateKey(identity.privateKey)
        configuration.minimumTLSVersion = .tlsv13
        configuration.maximumTLSVersion = .tlsv13
        // Verification on (so that the server asks for and requires a client certificate); the custom callback
        // replaces chain validation, since identities are keys, not names signed by an authority.
        configuration.certificateVerification = .noHostnameVerification
        return configuration
    }
}
