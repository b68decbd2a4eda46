import Glibc
import InterPayControlClient

/// File-system chores around the control socket: its directory, a left-over socket, its modes, its removal.
///
/// These are short system calls on local files; they run on the calling thread.
enum ControlSocketFile {
    /// What is at the socket path before binding.
    enum Existing: Equatable {
        case absent
        /// A socket nobody listens on (left by a daemon that died).
        case stale
        /// A socket some process accepts connections on.
        case live
        case notASocket
    }

    /// Identifies one socket file, so that only our own is removed at exit.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// Creates the socket's parent directory with `mode` (and group `groupID`) if it is missing; missing ancestors
    /// get `0755`. An existing directory is used only if it is safe (`unsafeDirectoryReason`).
    static func prepareDirectory(for path: String, mode: UInt32, groupID: UInt32?) throws(ControlServerError) {
        let directory = UnixSocketAddress.parentDirectory(of: path)
        var info = stat()
        if stat(directory, &info) == 0 {
            try checkExisting(directory, info)
            return
        }
        try makeDirectory(directory, mode: 0o755)
        // Another user may have made it between `stat` and `mkdir` (which then says EEXIST): what is there now is
        // checked as an existing directory would be, and not followed if it is a link, before its group and mode
        // are set.
        guard lstat(directory, &info) == 0 else {
            throw .directoryFailed(path: directory, reason: UnixSocketAddress.errorText())
        }
        try checkExisting(directory, info)
        if let groupID, chown(directory, uid_t.max, groupID) != 0 {
            throw .directoryFailed(path: directory, reason: "chgrp \(groupID): \(UnixSocketAddress.errorText())")
        }
        // mkdir applies the umask; set the mode exactly.
        guard chmod(directory, mode_t(mode)) == 0 else {
            throw .directoryFailed(
                path: directory, reason: "chmod \(String(mode, radix: 8)): \(UnixSocketAddress.errorText())")
        }
    }

    /// Throws unless `info` describes a directory that may hold the control socket (`unsafeDirectoryReason`).
    private static func checkExisting(_ directory: String, _ info: stat) throws(ControlServerError) {
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .directoryFailed(path: directory, reason: "exists and is not a directory")
        }
        if let reason = unsafeDirectoryReason(
            owner: UInt32(info.st_uid), mode: UInt32(info.st_mode), me: UInt32(geteuid()))
        {
            throw .directoryFailed(path: directory, reason: reason)
        }
    }

    /// Why an existing directory must not hold the control socket, or nil when it may: it must belong to this user
    /// or to root, and nobody else may write to it, unless its sticky bit is set (like `/tmp`), which keeps others
    /// from removing or replacing the socket. Otherwise another user could swap the socket for one of their own.
    static func unsafeDirectoryReason(owner: UInt32, mode: UInt32, me: UInt32) -> String? {
        guard owner == me || owner == 0 else {
            return "belongs to uid \(owner), not to this user (\(me)) or root; remove it or choose another socket path"
        }
        let sticky = mode & UInt32(S_ISVTX) != 0
        if !sticky, mode & 0o022 != 0 {
            return "is writable by other users (mode \(String(mode & 0o7777, radix: 8))); make it 0700 or 0750"
        }
        return nil
    }

    private static func makeDirectory(_ directory: String, mode: mode_t) throws(ControlServerError) {
        if mkdir(directory, mode) == 0 { return }
        switch errno {
        case EEXIST:
            return
        case ENOENT:
            let parent = UnixSocketAddress.parentDirectory(of: directory)
            guard parent != directory else {
                throw .directoryFailed(path: directory, reason: UnixSocketAddress.errorText())
            }
            try makeDirectory(parent, mode: 0o755)
            guard mkdir(directory, mode) == 0 || errno == EEXIST else {
                throw .directoryFailed(path: directory, reason: UnixSocketAddress.errorText())
            }
        default:
            throw .directoryFailed(path: directory, reason: UnixSocketAddress.errorText())
        }
    }

    /// Looks at what is at `path`: nothing, a stale socket, a live one, or something else.
    static func probe(_ path: String) throws(ControlServerError) -> Existing {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return .absent }
            throw .probeFailed(path: path, reason: UnixSocketAddress.errorText())
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .probeFailed(path: path, reason: UnixSocketAddress.errorText()) }
        defer { close(fd) }
        // Non-blocking, so that a listener with a full backlog answers EAGAIN instead of blocking us.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var address = sockaddr_un()
        guard UnixSocketAddress.fill(&address, path: path) else {
            throw .pathTooLong(path: path, limit: UnixSocketAddress.maxPathLength)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return .live }
        switch errno {
        case EAGAIN, EINPROGRESS: return .live
        case ECONNREFUSED: return .stale
        case ENOENT: return .absent
        default: throw .probeFailed(path: path, reason: UnixSocketAddress.errorText())
        }
    }

    /// Removes a stale socket file.
    static func removeStale(_ path: String) throws(ControlServerError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .probeFailed(path: path, reason: "cannot remove the stale socket: \(UnixSocketAddress.errorText())")
        }
    }

    /// Sets the socket's mode and, when configured, its group.
    static func applyPermissions(_ path: String, mode: UInt32, groupID: UInt32?) throws(ControlServerError) {
        if let groupID, chown(path, uid_t.max, groupID) != 0 {
            throw .permissionsFailed(path: path, reason: "chgrp \(groupID): \(UnixSocketAddress.errorText())")
        }
        guard chmod(path, mode_t(mode)) == 0 else {
            throw .permissionsFailed(
                path: path, reason: "chmod \(String(mode, radix: 8)): \(UnixSocketAddress.errorText())")
        }
    }

    /// The device and inode of the file at `path`, if any.
    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Removes the socket at `path` if it is still the one identified by `identity`.
    static func remove(_ path: String, ifStill identity: Identity?) {
        guard let identity, self.identity(of: path) == identity else { return }
        unlink(path)
    }
}
