import FoundationEssentials
import Glibc
import NIOCore

/// Who is on the other end of a Unix socket connection, as the kernel reports it (`SO_PEERCRED`).
struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
    /// The peer's supplementary groups when it connected (`SO_PEERGROUPS`): `SO_PEERCRED` reports only the primary
    /// group, while the socket file's mode (0660) admits every member of its group. Taken from the socket, not from
    /// `/proc` (racy, and hidden under `ProtectProc=invisible`).
    var groups: [UInt32] = []

    var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

    /// Reads the credentials of a connected Unix socket channel (runs on its event loop).
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(PeerCredentialsError.unsupportedChannel)
        }
        // `struct ucred { pid_t pid; uid_t uid; gid_t gid; }` is not imported from Glibc (it needs _GNU_SOURCE);
        // a homogeneous tuple of the same three 32-bit fields has the same size, alignment and layout.
        let raw: EventLoopFuture<(Int32, UInt32, UInt32)> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        // SO_PEERGROUPS (Linux 4.13) fills as many gid_t as the peer has, into a buffer NIO zeroes first; slots it
        // did not fill stay 0, so gid 0 cannot be told apart from an empty slot and is left out (root's group
        // still counts as a primary group). More groups than the buffer holds fail with ERANGE: none are used.
        let groups: EventLoopFuture<[UInt32]> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(Self.peerGroupsOption)
        ).map { (buffer: InlineArray<256, UInt32>) in
            var list: [UInt32] = []
            for index in buffer.indices where buffer[index] != 0 { list.append(buffer[index]) }
            return list
        }.recover { _ in [] }
        return raw.and(groups).map { credentials, groups in
            PeerCredentials(pid: credentials.0, uid: credentials.1, gid: credentials.2, groups: groups)
        }
    }

    /// `SO_PEERGROUPS` from `<asm-generic/socket.h>`.
    static let peerGroupsOption: Int32 = 59
}

/// The channel cannot report peer credentials (not a socket channel).
enum PeerCredentialsError: Error {
    case unsupportedChannel
}
