import Foundation
import InterPayContract
import InterPayCore
import InterPayStore
import InterPayTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Taking a backup of a running daemon (`interpay backup`) and restoring one into an empty state directory
/// (`interpayd --restore`).
///
/// A backup holds the identity (key and certificate), a consistent snapshot of the ledger, and the configuration
/// file the daemon read, if any. Restored on another host, the daemon keeps its peer ID, so its paired peers take
/// its sessions without pairing again, and its outbox is sent when they come up.
public enum Backup {
    /// The names of the files inside a backup.
    enum Entry {
        static let key = Identity.keyFileName
        static let certificate = Identity.certificateFileName
        static let ledger = "ledger.sqlite"
        static let configuration = "interpayd.toml"
    }

    /// The directory inside the state directory where backups are written (0700).
    static let directoryName = "backups"

    /// Takes a backup of `database` and the identity in `configuration.stateDirectory` and writes it there, in
    /// `backups/` (mode 0600), encrypted when `passphrase` is given.
    static func take(
        database: AppDatabase, configuration: DaemonConfiguration, peerID: PeerID, passphrase: String?,
        now: Timestamp = .now
    ) async throws -> BackupInfo {
        let state = configuration.stateDirectory
        let directory = state.appending(path: directoryName)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let stamp = ISO8601Time.format(now).replacingOccurrences(of: ":", with: "")
        let snapshot = directory.appending(path: ".ledger-\(UUID().uuidString).sqlite").path
        defer { _ = unlink(snapshot) }
        let payments = try await database.backup(toPath: snapshot)
        var files: [String: [UInt8]] = [:]
        files[Entry.ledger] = try read(snapshot)
        files[Entry.key] = try read(state.appending(path: Entry.key).path)
        files[Entry.certificate] = try read(state.appending(path: Entry.certificate).path)
        if let file = configuration.configurationFile { files[Entry.configuration] = try read(file) }
        let archive = BackupArchive(peerID: peerID.description, createdAt: now.secondsSince1970, files: files)
        let bytes = try archive.encoded(passphrase: passphrase)
        let path = directory.appending(path: "interpay-\(peerID.shortDescription)-\(stamp).backup").path
        try write(bytes, to: path)
        return BackupInfo(
            path: path, bytes: Int64(bytes.count), encrypted: passphrase != nil, peerID: peerID.description,
            payments: Int64(payments))
    }

    /// What a restore did.
    public struct Restored: Sendable {
        /// The peer ID restored.
        public var peerID: String
        /// When the backup was taken (Unix time).
        public var takenAt: Int64
        /// The payments in the restored ledger.
        public var payments: Int
        /// Where the backup's configuration file was put, if it had one (it is not applied by itself).
        public var configuration: String?
    }

    /// Restores the backup at `file` into `configuration.stateDirectory`, which must hold no identity or ledger and
    /// no running daemon (its lock is held meanwhile); the file is checked whole before anything is written.
    public static func restore(
        file: String, passphrase: String?, configuration: DaemonConfiguration
    ) async throws(DaemonError) -> Restored {
        let lock = try StateDirectoryLock.claim(configuration.stateDirectory, socketPath: configuration.socketPath)
        // Held until the restore is done: no daemon may start on the directory meanwhile.
        defer { withExtendedLifetime(lock) {} }
        let state = configuration.stateDirectory
        for name in [Entry.key, Entry.ledger]
        where FileManager.default.fileExists(atPath: state.appending(path: name).path) {
            throw .state(
                "the state directory \(state.path) holds \(name) already: restore into an empty state directory "
                    + "(--state-dir), or move its files away first")
        }
        let archive: BackupArchive
        do {
            archive = try BackupArchive(decoding: try read(file), passphrase: passphrase)
        } catch let error as BackupError {
            throw .state("cannot restore \(file): \(error.description)")
        } catch {
            throw .state("cannot read \(file): \(error)")
        }
        guard let key = archive.files[Entry.key], let certificate = archive.files[Entry.certificate],
            let ledger = archive.files[Entry.ledger]
        else { throw .state("cannot restore \(file): it lacks the identity or the ledger") }
        let staged = state.appending(path: ".restore-\(UUID().uuidString).sqlite").path
        defer { _ = unlink(staged) }
        let payments: Int
        do {
            try write(ledger, to: staged)
            let database = try AppDatabase(path: staged)
            if let problem = try await database.integrityProblem() {
                throw DaemonError.storage("the ledger in \(file) is damaged: \(problem)")
            }
            payments = try await database.size().payments
        } catch let error as DaemonError {
            throw error
        } catch {
            throw .storage("the ledger in \(file) does not open: \(error)")
        }
        var restoredConfiguration: String?
        do {
            try write(key, to: state.appending(path: Entry.key).path)
            try write(certificate, to: state.appending(path: Entry.certificate).path)
            guard rename(staged, state.appending(path: Entry.ledger).path) == 0 else {
                throw BackupIOError(path: staged, code: errno)
            }
            if let text = archive.files[Entry.configuration] {
                let path = state.appending(path: Entry.configuration + ".restored").path
                _ = unlink(path)
                try write(text, to: path)
                restoredConfiguration = path
            }
        } catch {
            throw .state("cannot restore into \(state.path): \(error)")
        }
        do {
            let restoredID = try DaemonIdentity.peerID(in: state)
            guard restoredID == archive.header.peerID else {
                throw DaemonError.state(
                    "the identity in \(file) is \(restoredID), not the \(archive.header.peerID) its header names")
            }
        } catch let error as DaemonError {
            throw error
        } catch {
            throw .state("the restored identity does not load: \(error)")
        }
        return Restored(
            peerID: archive.header.peerID, takenAt: archive.header.createdAt, payments: payments,
            configuration: restoredConfiguration)
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BackupIOError(path: path, code: errno)
        }
        return Array(data)
    }

    /// Writes a new file (mode 0600 from the start; never through a link planted at `path`).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BackupIOError(path: path, code: errno) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw BackupIOError(path: path, code: errno) }
            offset += written
        }
        guard fsync(descriptor) == 0 else { throw BackupIOError(path: path, code: errno) }
    }
}

/// A file of a backup that cannot be read or written.
struct BackupIOError: Error, CustomStringConvertible {
    let path: String
    let code: Int32

    var description: String { "\(path): \(String(cString: strerror(code)))" }
}
