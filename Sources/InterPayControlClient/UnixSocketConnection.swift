import Glibc
import Synchronization

/// A blocking connection to a Unix stream socket, for the client's dedicated threads.
///
/// One thread reads and writes; any thread may call `shutdown()` to wake it. Only `close()` releases the
/// descriptor, and the mutex keeps `shutdown()` from touching a descriptor number that was already closed.
final class UnixSocketConnection: Sendable {
    /// Why an I/O operation stopped.
    enum IOFailure: Error, Equatable {
        case timedOut
        case failed(String)
        /// The path is not a control socket this user may use (not a socket, no permission, served by someone it
        /// should not trust): starting a daemon would not help.
        case unusable(String)
        case lineTooLong(Int)
    }

    /// The descriptor; -1 once closed.
    private let descriptor: Mutex<Int32>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        close()
    }

    /// Connects to `path`, giving up after `timeout` (a listener with a full backlog makes connect wait).
    ///
    /// Throws the reason as a short phrase: "no socket file", "connection refused", "permission denied", …
    static func connect(path: String, timeout: Duration) throws(IOFailure) -> UnixSocketConnection {
        var address = sockaddr_un()
        guard UnixSocketAddress.fill(&address, path: path) else {
            throw .failed("socket path longer than \(UnixSocketAddress.maxPathLength) bytes")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .failed(UnixSocketAddress.errorText()) }
        let connection = UnixSocketConnection(descriptor: fd)
        // For Unix sockets the send timeout also bounds connect.
        var time = timeval(duration: timeout)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            switch code {
            case ENOENT: throw .failed("no socket file")
            case ECONNREFUSED:
                if let kind = nonSocketKind(at: path) { throw .unusable("it is \(kind), not a socket") }
                throw .failed("connection refused: no daemon listens on it (the socket file is stale)")
            case EACCES, EPERM: throw .unusable(permissionProblem(at: path))
            case EAGAIN, ETIMEDOUT, EINPROGRESS: throw .timedOut
            default: throw .failed(UnixSocketAddress.errorText(code))
            }
        }
        // Nothing is sent to a socket someone else could have put there: in a directory others can write to, a fake
        // socket could collect requests (amounts, memos) meant for the daemon.
        guard let server = connection.serverUID() else { throw .failed("cannot read who serves the socket") }
        if let problem = untrustedServerReason(serverUID: server, socketPath: path) {
            throw .unusable(problem + "; nothing was sent")
        }
        return connection
    }

    /// What the file at `path` is when it is there and not a socket ("a regular file", "a directory", ...); nil for a
    /// socket or when it cannot be read.
    static func nonSocketKind(at path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch UInt32(info.st_mode) & UInt32(S_IFMT) {
        case UInt32(S_IFSOCK): return nil
        case UInt32(S_IFREG): return "a regular file"
        case UInt32(S_IFDIR): return "a directory"
        case UInt32(S_IFLNK): return "a symbolic link"
        case UInt32(S_IFIFO): return "a named pipe"
        default: return "a device or special file"
        }
    }

    /// Why this user may not connect to the socket at `path`, in words that say whose it is.
    static func permissionProblem(at path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return "permission denied: this user (uid \(geteuid())) cannot enter the socket's directory"
        }
        let mode = String(UInt32(info.st_mode) & 0o777, radix: 8)
        return """
            permission denied: the socket belongs to uid \(info.st_uid), group \(info.st_gid), mode 0\(mode), and this \
            user (uid \(geteuid())) is neither its owner nor in a group it lets in
            """
    }

    /// The uid of the process that serves the socket (`SO_PEERCRED`), or nil if the kernel does not say.
    func serverUID() -> UInt32? {
        let fd = descriptor.withLock { $0 }
        // `struct ucred` is not imported from Glibc (it needs _GNU_SOURCE); three 32-bit fields, same layout.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials.1
    }

    /// Why a socket served by `serverUID` at `socketPath` is not to be trusted, or nil when it is: served by this
    /// user or root; or by the owner of both the socket file and its directory (the daemon's own user, `interpay`
    /// under the system unit), in a directory that only that owner (or root) can write to — so that no other
    /// user could have put a socket there.
    static func untrustedServerReason(serverUID: UInt32, socketPath: String) -> String? {
        if serverUID == geteuid() || serverUID == 0 { return nil }
        var socketInfo = stat()
        var directoryInfo = stat()
        guard lstat(socketPath, &socketInfo) == 0,
            stat(UnixSocketAddress.parentDirectory(of: socketPath), &directoryInfo) == 0
        else { return "cannot check who owns the socket" }
        guard socketInfo.st_uid == serverUID else {
            return "the socket is served by uid \(serverUID) but belongs to uid \(socketInfo.st_uid)"
        }
        guard directoryInfo.st_uid == serverUID || directoryInfo.st_uid == 0,
            UInt32(directoryInfo.st_mode) & 0o022 == 0
        else {
            return "the socket is served by uid \(serverUID), in a directory other users can write to"
        }
        return nil
    }

    /// Writes all of `bytes` (blocking, bounded by the connect timeout per write).
    func send(_ bytes: [UInt8]) throws(IOFailure) {
        let fd = descriptor.withLock { $0 }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw .timedOut }
                throw .failed(UnixSocketAddress.errorText())
            }
            offset += written
        }
    }

    /// Reads what is available into `buffer`, waiting until `deadline` (forever when nil); 0 at end of input.
    func receive(into buffer: inout [UInt8], deadline: ContinuousClock.Instant?) throws(IOFailure) -> Int {
        let fd = descriptor.withLock { $0 }
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let timeout: Int32
            if let deadline {
                let remaining = deadline - .now
                guard remaining > .zero else { throw .timedOut }
                let (seconds, attoseconds) = remaining.components
                timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            } else {
                timeout = -1
            }
            let ready = poll(&poller, 1, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .failed(UnixSocketAddress.errorText())
            }
            if ready == 0 { continue }  // re-check the deadline
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .failed(UnixSocketAddress.errorText())
            }
            buffer.append(contentsOf: chunk[..<count])
            return count
        }
    }

    /// Wakes a thread blocked on this connection (it then sees end of input); safe from any thread.
    func shutdown() {
        descriptor.withLock { fd in
            if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the sending side only (the peer sees end of input); reading goes on.
    func shutdownWrite() {
        descriptor.withLock { fd in
            if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
        }
    }

    /// Releases the descriptor; later calls do nothing.
    func close() {
        descriptor.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }
}

/// Splits what a `UnixSocketConnection` receives into lines.
struct LineReader {
    private var buffer: [UInt8] = []
    private var scanned = 0
    let maxLength: Int

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    /// The next line without its terminator; nil at end of input (an unterminated last line is returned first).
    mutating func nextLine(
        from connection: UnixSocketConnection, deadline: ContinuousClock.Instant?
    ) throws(UnixSocketConnection.IOFailure) -> [UInt8]? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                scanned = 0
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return line
            }
            scanned = buffer.count
            guard buffer.count <= maxLength + 1 else { throw .lineTooLong(maxLength) }
            if try connection.receive(into: &buffer, deadline: deadline) == 0 {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return buffer
            }
        }
    }
}

extension timeval {
    /// A `timeval` for a duration (at least 1 ms, so that zero does not mean "forever").
    fileprivate init(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(attoseconds / 1_000_000_000_000, seconds <= 0 ? 1_000 : 0)
        self.init(tv_sec: Int(seconds), tv_usec: Int(microseconds))
    }
}
