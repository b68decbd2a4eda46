import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Who is on the other end of a Unix socket connection, as the kernel reports it (`SO_PEERCRED`).
struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

    /// The peer process's supplementary groups, from `/proc/PID/status`: `SO_PEERCRED` reports only the primary
    /// group, while the socket file's mode (0660) already admits every member of its group.
    func supplementaryGroups() -> [UInt32] {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return [] }
        return Self.groups(inProcStatus: status)
    }

    /// The `Groups:` line of a `/proc/PID/status` text.
    static func groups(inProcStatus text: String) -> [UInt32] {
        for line in text.split(separator: "\n") where line.hasPrefix("Groups:") {
            return line.dropFirst("Groups:".count).split(whereSeparator: \.isWhitespace).compactMap { UInt32($0) }
        }
        return []
    }

    /// Reads the credentials of a connected Unix socket channel (runs on its event loop).
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(PeerCredentialsError.unsupportedChannel)
        }
        // `struct ucred { pid_t pid; uid_t uid; gid_t gid; }` is not imported from Glibc (it needs _GNU_SOURCE);
        // a homogeneous tuple of the same three 32-bit fields has the same size, alignment and layout.
        let raw: EventLoopFuture<(Int32, UInt32, UInt32)> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return raw.map { PeerCredentials(pid: $0.0, uid: $0.1, gid: $0.2) }
    }
}

/// The channel cannot report peer credentials (not a socket channel).
enum PeerCredentialsError: Error {
    case unsupportedChannel
}
