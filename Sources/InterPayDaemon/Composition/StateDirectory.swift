import Foundation
import Glibc
import InterPayCore
import InterPayTransport
import Logging
import ServiceLifecycle

/// The daemon's claim on its state directory: the directory and the identity key pass the same ownership and mode
/// checks as the control socket's directory, and an exclusive lock (`flock`) on `interpayd.lock` inside it keeps a
/// second daemon off the same identity and ledger.
///
/// Two daemons on one state directory would share one identity (one peer ID, two sessions fighting over each peer)
/// and write one ledger from two engines that each believe they are the only writer. A directory of another user
/// could hold a key that user planted: a daemon that adopted it would speak with a key someone else holds.
///
/// The lock is the kernel's: it goes when the process ends, however it ends, so a crash never leaves a stale lock.
/// The lock file holds the owner's pid and control socket, for the error a second daemon prints.
final class StateDirectoryLock: Sendable {
    /// The lock file's name in the state directory.
    static let fileName = "interpayd.lock"

    private let descriptor: Int32
    /// The state directory.
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Creates `directory` (0700) if needed, checks it and the identity key in it, and takes the lock; throws a
    /// `DaemonError` that says what is wrong and what to do.
    static func claim(_ directory: URL, socketPath: String) throws(DaemonError) -> StateDirectoryLock {
        let path = directory.path
        if !FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .state("cannot create the state directory \(path): \(error.localizedDescription)")
            }
        }
        try checkDirectory(path)
        try checkKey(directory.appending(path: Identity.keyFileName).path)
        let lockPath = directory.appending(path: fileName).path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .state("cannot open the lock file \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            let owner = Self.owner(descriptor)
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw .state("cannot lock \(lockPath): \(String(cString: strerror(reason)))")
            }
            throw .state(
                "another interpayd\(owner.map { " (\($0))" } ?? "") is using the state directory \(path); "
                    + "a state directory holds one daemon's identity and ledger: stop that daemon, or give this one "
                    + "another --state-dir")
        }
        let record = "pid \(getpid())\nsocket \(socketPath)\n"
        // The record only serves a second daemon's message; failing to write it is no reason not to run.
        _ = ftruncate(descriptor, 0)
        _ = record.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return StateDirectoryLock(descriptor: descriptor, path: path)
    }

    /// `pid N, control socket PATH` from the lock file of the daemon that holds it, when it could be read.
    private static func owner(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        var pid: String?
        var socket: String?
        for line in String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("pid ") { pid = String(line.dropFirst(4)).filter(\.isNumber) }
            if line.hasPrefix("socket ") { socket = String(line.dropFirst(7)) }
        }
        guard let pid, !pid.isEmpty else { return nil }
        return "pid \(pid)" + (socket.map { ", control socket \(SafeText.escaped($0))" } ?? "")
    }

    /// What one entry of the state directory must be: its kind, and no access by others.
    private struct Rule {
        /// `the state directory`, `the identity key`.
        let what: String
        /// `S_IFDIR` or `S_IFREG`.
        let kind: mode_t
        /// What is said when it is of another kind.
        let kindProblem: String
        /// The mode bits that others may not have, and what having them means.
        let forbidden: mode_t
        let forbiddenProblem: String
        /// The mode that fixes it.
        let mode: String
        /// Why another user's entry is refused, and what to do.
        let foreignProblem: String

        static let directory = Rule(
            what: "the state directory", kind: S_IFDIR,
            kindProblem: "is not a directory (a symbolic link? give the directory itself)", forbidden: 0o022,
            forbiddenProblem: "is writable by other users", mode: "700",
            foreignProblem: "its identity key and ledger could be someone else's; use a directory of this user")
        static let key = Rule(
            what: "the identity key", kind: S_IFREG,
            kindProblem: "is not a regular file (a link or a device?); remove it or fix it", forbidden: 0o077,
            forbiddenProblem: "can be read or written by other users", mode: "600",
            foreignProblem: "someone else may hold it; remove it to make a new identity, or restore this user's key")
    }

    /// Checks `path` against `rule` without following a link; false when it does not exist.
    private static func check(_ path: String, _ rule: Rule) throws(DaemonError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw .state("cannot look at \(rule.what) \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == rule.kind else { throw .state("\(rule.what) \(path) \(rule.kindProblem)") }
        let me = geteuid()
        guard info.st_uid == me else {
            throw .state(
                "\(rule.what) \(path) belongs to uid \(info.st_uid), not to this daemon's user (uid \(me)): "
                    + rule.foreignProblem)
        }
        guard info.st_mode & rule.forbidden == 0 else {
            throw .state(
                "\(rule.what) \(path) \(rule.forbiddenProblem) (mode \(String(info.st_mode & 0o7777, radix: 8))): "
                    + "run 'chmod \(rule.mode) \(path)'")
        }
        return true
    }

    /// The state directory must be a directory (not a link to one), this user's, and writable by no one else; it is
    /// then made 0700.
    private static func checkDirectory(_ path: String) throws(DaemonError) {
        guard try check(path, .directory) else { throw .state("the state directory \(path) does not exist") }
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & 0o777 != 0o700, chmod(path, 0o700) != 0 {
            throw .state("cannot make the state directory \(path) private: \(String(cString: strerror(errno)))")
        }
    }

    /// An existing identity key must be a regular file (not a link), this user's, and readable by no one else; a
    /// missing one is created 0600 later.
    private static func checkKey(_ path: String) throws(DaemonError) {
        _ = try check(path, .key)
    }
}

/// Holds the state directory's lock for the life of the daemon: first of the services, so that it is the last to
/// stop and the lock goes only when everything else that uses the directory has stopped.
struct StateDirectoryService: Service {
    let lock: StateDirectoryLock

    func run() async throws {
        // Until graceful shutdown (or cancellation) ends the wait; either is the end of the daemon's use.
        try? await gracefulShutdown()
        withExtendedLifetime(lock) {}
    }
}

extension StateDirectoryService: CustomStringConvertible {
    /// A short name for ServiceLifecycle's log lines.
    var description: String { "StateDirectoryService" }
}
