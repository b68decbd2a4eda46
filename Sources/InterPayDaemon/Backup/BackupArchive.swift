import Crypto
import CryptoExtras
import Foundation
import InterPayContract

/// A backup file: the daemon's identity, its ledger and its configuration, with a check that refuses any change.
///
/// Layout (all lengths big-endian):
///
///     "INTERPAY-BACKUP1"                         16 bytes
///     header length                              UInt32
///     header                                     JSON (`Header`)
///     body
///
/// The body is the payload followed by the SHA-256 of everything before it (magic, length, header, payload), or, when
/// the header names an encryption, the payload sealed with AES-256-GCM (nonce, ciphertext, tag) under a key scrypt
/// derives from the passphrase and the header's salt, the magic, length and header authenticated with it. The
/// payload is a sequence of files: name length (UInt16), name (UTF-8), data length (UInt64), data.
public struct BackupArchive: Sendable, Equatable {
    /// The file's first bytes.
    static let magic = Array("INTERPAY-BACKUP1".utf8)

    /// What the file says of itself, readable without the passphrase.
    public struct Header: Codable, Sendable, Equatable {
        /// The format's version (1).
        public var version: Int
        /// When the backup was taken (Unix time).
        public var createdAt: Int64
        /// The peer ID the identity in it has.
        public var peerID: String
        /// Set when the payload is encrypted.
        public var encryption: Encryption?
    }

    /// How the payload is encrypted.
    public struct Encryption: Codable, Sendable, Equatable {
        /// `scrypt`.
        public var kdf: String
        /// The salt, base64.
        public var salt: String
        /// scrypt's N, r and p.
        public var rounds: Int
        public var blockSize: Int
        public var parallelism: Int
        /// `AES-256-GCM`.
        public var cipher: String
    }

    /// The file's header.
    public var header: Header
    /// The files, by name.
    public var files: [String: [UInt8]]

    /// scrypt's cost: 2^15 rounds of 8 blocks, about 32 MiB and a tenth of a second (the parameters scrypt's paper
    /// gives for interactive use).
    public static let scryptRounds = 1 << 15
    static let scryptBlockSize = 8
    /// The shortest passphrase taken (the contract's, which the CLI checks too).
    public static let minimumPassphraseLength = BackupParams.minimumPassphraseLength

    /// An archive of `files` for `peerID`, taken at `createdAt`.
    public init(peerID: String, createdAt: Int64, files: [String: [UInt8]]) {
        self.header = Header(version: 1, createdAt: createdAt, peerID: peerID, encryption: nil)
        self.files = files
    }

    /// The file's bytes; encrypted under `passphrase` when one is given (with scrypt's N = `rounds`: only tests
    /// lower it, to check many files quickly).
    public func encoded(passphrase: String?, rounds: Int = Self.scryptRounds) throws(BackupError) -> [UInt8] {
        var header = self.header
        var payload: [UInt8] = []
        for name in files.keys.sorted() {
            let data = files[name] ?? []
            let nameBytes = Array(name.utf8)
            payload += Self.bigEndian(UInt16(nameBytes.count)) + nameBytes
            payload += Self.bigEndian(UInt64(data.count)) + data
        }
        var key: SymmetricKey?
        if let passphrase {
            guard passphrase.count >= Self.minimumPassphraseLength else { throw .weakPassphrase }
            let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
            header.encryption = Encryption(
                kdf: "scrypt", salt: Data(salt).base64EncodedString(), rounds: rounds,
                blockSize: Self.scryptBlockSize, parallelism: 1, cipher: "AES-256-GCM")
            key = try Self.key(passphrase, salt: salt, rounds: rounds, blockSize: Self.scryptBlockSize)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let headerBytes: [UInt8]
        do {
            headerBytes = Array(try encoder.encode(header))
        } catch {
            throw .malformed("cannot write the header: \(error)")
        }
        let prefix = Self.magic + Self.bigEndian(UInt32(headerBytes.count)) + headerBytes
        guard let key else { return prefix + payload + Array(SHA256.hash(data: prefix + payload)) }
        do {
            guard let sealed = try AES.GCM.seal(payload, using: key, authenticating: prefix).combined else {
                throw BackupError.malformed("cannot seal the payload")
            }
            return prefix + Array(sealed)
        } catch let error as BackupError {
            throw error
        } catch {
            throw .malformed("cannot seal the payload: \(error)")
        }
    }

    /// Reads a backup file's bytes, checking that not one of them changed; `passphrase` opens an encrypted one.
    public init(decoding bytes: [UInt8], passphrase: String?) throws(BackupError) {
        guard bytes.count >= Self.magic.count + 4, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            throw .notABackup
        }
        let headerLength = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let headerEnd = 20 + headerLength
        guard headerLength > 0, bytes.count >= headerEnd else { throw .damaged("the header is cut short") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes[20..<headerEnd]))
        } catch {
            throw .damaged("the header does not read")
        }
        guard header.version == 1 else { throw .unsupportedVersion(header.version) }
        let prefix = Array(bytes[..<headerEnd])
        let body = Array(bytes[headerEnd...])
        let payload: [UInt8]
        if let encryption = header.encryption {
            guard let passphrase else { throw .passphraseNeeded }
            guard encryption.kdf == "scrypt", encryption.cipher == "AES-256-GCM",
                let salt = Data(base64Encoded: encryption.salt), (1...(1 << 20)).contains(encryption.rounds),
                encryption.rounds.nonzeroBitCount == 1, (1...32).contains(encryption.blockSize),
                encryption.parallelism == 1
            else { throw .damaged("the header names an encryption this version does not use") }
            let key = try Self.key(
                passphrase, salt: Array(salt), rounds: encryption.rounds, blockSize: encryption.blockSize)
            do {
                payload = Array(
                    try AES.GCM.open(AES.GCM.SealedBox(combined: body), using: key, authenticating: prefix))
            } catch {
                throw .wrongPassphraseOrDamaged
            }
        } else {
            guard body.count >= 32 else { throw .damaged("the checksum is cut short") }
            payload = Array(body.dropLast(32))
            guard Array(SHA256.hash(data: prefix + payload)) == Array(body.suffix(32)) else {
                throw .damaged("its checksum does not match: the file was changed or cut short")
            }
        }
        var files: [String: [UInt8]] = [:]
        var index = 0
        func take(_ count: Int) throws(BackupError) -> ArraySlice<UInt8> {
            guard count >= 0, payload.count - index >= count else { throw .damaged("a file in it is cut short") }
            defer { index += count }
            return payload[index..<index + count]
        }
        while index < payload.count {
            let nameLength = try take(2).reduce(0) { $0 << 8 | Int($1) }
            let name = String(decoding: try take(nameLength), as: UTF8.self)
            let length = try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard length <= UInt64(payload.count) else { throw .damaged("a file in it is cut short") }
            files[name] = Array(try take(Int(length)))
        }
        self.header = header
        self.files = files
    }

    private static func key(
        _ passphrase: String, salt: [UInt8], rounds: Int, blockSize: Int
    ) throws(BackupError)
        -> SymmetricKey
    {
        do {
            return try KDF.Scrypt.deriveKey(
                from: Array(passphrase.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: blockSize,
                parallelism: 1)
        } catch {
            throw .malformed("cannot derive the key: \(error)")
        }
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}

/// Why a backup cannot be taken or read.
public enum BackupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start as a backup does.
    case notABackup
    /// A byte of it changed, or it was cut short.
    case damaged(String)
    /// A format version this daemon does not read.
    case unsupportedVersion(Int)
    /// The file is encrypted and no passphrase was given.
    case passphraseNeeded
    /// The passphrase does not open it, or its encrypted part changed.
    case wrongPassphraseOrDamaged
    /// A passphrase shorter than `BackupArchive.minimumPassphraseLength`.
    case weakPassphrase
    /// Anything else that went wrong writing it.
    case malformed(String)

    public var description: String {
        switch self {
        case .notABackup: "not an InterPay backup file"
        case .damaged(let reason): "the backup is damaged: \(reason)"
        case .unsupportedVersion(let version): "backup format version \(version) is not one this interpayd reads"
        case .passphraseNeeded: "the backup is encrypted: give its passphrase with --passphrase-file"
        case .wrongPassphraseOrDamaged: "the passphrase does not open this backup, or the file was changed"
        case .weakPassphrase:
            "a passphrase has at least \(BackupArchive.minimumPassphraseLength) characters"
        case .malformed(let reason): reason
        }
    }
}
