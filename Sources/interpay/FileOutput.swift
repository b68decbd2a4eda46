#if canImport(Glibc)
    import Glibc
#endif

/// The files the CLI writes: opened without following a link at the path (`O_NOFOLLOW`), so that a link planted
/// where a file is to be written never redirects the write to another file, and written whole.
enum FileOutput {
    /// Writes `bytes` to `path`, opened with `O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC` and `flags` (`O_EXCL` for a
    /// file that must be new, `O_TRUNC` to replace one), created with `mode`. Returns why it failed, nil when written.
    static func write(_ bytes: [UInt8], to path: String, flags: Int32, mode: mode_t) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | flags, mode)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? String(cString: strerror(errno)) : "nothing written" }
            offset += written
        }
        return nil
    }
}
