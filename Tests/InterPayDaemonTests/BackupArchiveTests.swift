import InterPayTestSupport
import Testing

@testable import InterPayDaemon

@Suite("Backup files: read back whole, or refused", .tearsDown)
struct BackupArchiveTests {
    static let files: [String: [UInt8]] = [
        "identity-key.pem": Array("key".utf8), "ledger.sqlite": Array(repeating: 7, count: 5_000), "empty": [],
    ]

    @Test("a plain and an encrypted file read back to the same files and header")
    func roundTrip() throws {
        let archive = BackupArchive(peerID: "ABCD", createdAt: 1_700_000_000, files: Self.files)
        let plain = try BackupArchive(decoding: try archive.encoded(passphrase: nil), passphrase: nil)
        #expect(plain == archive)
        let encrypted = try archive.encoded(passphrase: "correct horse")
        let opened = try BackupArchive(decoding: encrypted, passphrase: "correct horse")
        #expect(opened.files == Self.files && opened.header.peerID == "ABCD")
        #expect(opened.header.encryption?.kdf == "scrypt")
        #expect(!encrypted.contains(subsequence: Array(repeating: 7, count: 64)), "the ledger's bytes are not in clear")
    }

    @Test("every single byte changed, in the header, the payload or the checksum, is refused")
    func everyByteChecked() throws {
        let archive = BackupArchive(peerID: "ABCD", createdAt: 1, files: ["a": [1, 2, 3], "b": Array("xyz".utf8)])
        for passphrase in [nil, "correct horse"] as [String?] {
            // scrypt at N = 2^4: a key per altered byte, hundreds of them.
            let bytes = try archive.encoded(passphrase: passphrase, rounds: 16)
            var accepted: [Int] = []
            for index in bytes.indices {
                var altered = bytes
                altered[index] ^= 0x01
                if (try? BackupArchive(decoding: altered, passphrase: passphrase)) != nil { accepted.append(index) }
            }
            #expect(accepted.isEmpty, "altered bytes accepted at \(accepted) (passphrase: \(passphrase != nil))")
            #expect(throws: BackupError.self) {
                try BackupArchive(decoding: Array(bytes.dropLast()), passphrase: passphrase)
            }
        }
    }

    @Test("an encrypted file needs its passphrase; a short passphrase is refused")
    func passphrases() throws {
        let bytes = try BackupArchive(peerID: "A", createdAt: 1, files: Self.files).encoded(passphrase: "correct horse")
        #expect(throws: BackupError.passphraseNeeded) { try BackupArchive(decoding: bytes, passphrase: nil) }
        #expect(throws: BackupError.wrongPassphraseOrDamaged) {
            try BackupArchive(decoding: bytes, passphrase: "incorrect horse")
        }
        #expect(throws: BackupError.weakPassphrase) {
            try BackupArchive(peerID: "A", createdAt: 1, files: [:]).encoded(passphrase: "short")
        }
        #expect(throws: BackupError.notABackup) { try BackupArchive(decoding: Array("hello".utf8), passphrase: nil) }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains {
            self[$0..<$0 + subsequence.count].elementsEqual(subsequence)
        }
    }
}
