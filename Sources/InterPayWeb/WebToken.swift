public import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The web app's access token: 32 random bytes as hex, kept in the state directory (`web-token`, mode 0600).
///
/// Whoever can read the file (the daemon's user, root) can use the web app; `interpay web` asks the daemon for the
/// URL that carries it.
public enum WebToken {
    /// The token file's name inside the state directory.
    public static let fileName = "web-token"

    /// The token in `directory`, created (mode 0600) when missing or malformed; an existing file with wider
    /// permissions is narrowed to 0600.
    public static func loadOrCreate(in directory: URL) throws(WebTokenError) -> String {
        try loadOrCreate(atPath: directory.appending(path: fileName).path, groupMayRead: false)
    }

    /// The token in the file at `path`, created (mode 0600) when missing or malformed. An existing file is narrowed
    /// to 0600, or with `groupMayRead` (the metrics token, which Prometheus' user reads through its group) to 0640;
    /// others never keep access.
    public static func loadOrCreate(atPath path: String, groupMayRead: Bool) throws(WebTokenError) -> String {
        if let data = FileManager.default.contents(atPath: path),
            case let text = String(decoding: data, as: UTF8.self).filter({ !$0.isWhitespace }),
            isWellFormed(text)
        {
            var info = stat()
            guard stat(path, &info) == 0 else { throw .unwritable(path: path, errno: errno) }
            let mode = info.st_mode & 0o777 & (groupMayRead ? 0o640 : 0o600)
            guard mode == info.st_mode & 0o777 || chmod(path, mode) == 0 else {
                throw .unwritable(path: path, errno: errno)
            }
            return text
        }
        let token = generate()
        // Created with 0600 from the start (O_EXCL after removing any malformed file), never readable by others.
        _ = unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unwritable(path: path, errno: errno) }
        defer { close(descriptor) }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw .unwritable(path: path, errno: errno) }
        return token
    }

    /// A new token: 32 bytes from the system's secure generator, as 64 hex digits.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in hex(UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Whether `text` looks like a token this type made (64 lowercase hex digits).
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Compares two tokens in time that does not depend on where they differ.
    public static func matches(_ candidate: some StringProtocol, _ token: String) -> Bool {
        let left = Array(candidate.utf8)
        let right = Array(token.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}

/// Why the token file cannot be used.
public enum WebTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be created, written or narrowed to 0600.
    case unwritable(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .unwritable(let path, let code):
            "cannot write the token file \(path): \(String(cString: strerror(code)))"
        }
    }
}
