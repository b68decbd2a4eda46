public import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Who a web client is: the local user whose socket connected, when the system says (Linux: `/proc/net/tcp` and
/// `tcp6` name the owner of each socket), else its address.
///
/// Every client of the web app is on loopback, so its address says nothing about who it is: another local user can
/// bind any of 127.0.0.0/8. The socket's owner is what tells the owner's browser from another user's script.
public enum WebClient: Hashable, Sendable, CustomStringConvertible {
    /// The local user (uid) that owns the client's socket.
    case user(UInt32)
    /// The client's address, when its owner cannot be found.
    case address(String)

    public var description: String {
        switch self {
        case .user(let uid): "uid \(uid)"
        case .address(let address): address
        }
    }

    /// The client of a connection from `remote` to `local`: its socket's owner as the kernel's socket table names it,
    /// else `remote`'s address. Reads `/proc/net/tcp` (or `tcp6`): call it off the event loop.
    public static func identify(remote: SocketAddress, local: SocketAddress) -> WebClient {
        let fallback = WebClient.address(remote.ipAddress ?? "\(remote)")
        guard let client = SocketTableKey(remote), let server = SocketTableKey(local),
            let table = readFile(client.isIPv6 ? "/proc/net/tcp6" : "/proc/net/tcp")
        else { return fallback }
        return owner(in: table, client: client.text, server: server.text).map(WebClient.user) ?? fallback
    }

    /// The uid of the socket at `client` connected to `server` in a socket table's text (`/proc/net/tcp`'s format:
    /// `sl local_address rem_address st queues timer retransmits uid …`), or nil when no row matches.
    static func owner(in table: String, client: String, server: String) -> UInt32? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[1] == client, fields[2] == server else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    /// The whole of a small system file, or nil when it cannot be read.
    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            // A table past 16 MiB is not read through: the address stands in for the owner.
            guard bytes.count < 16 << 20 else { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// An address as the kernel's socket table writes it: the address's 32-bit words in memory order, each as 8
/// upper-case hex digits in the host's byte order, then `:` and the port as 4 hex digits.
struct SocketTableKey: Equatable {
    let text: String
    let isIPv6: Bool

    init?(_ address: SocketAddress) {
        guard let port = address.port, (0...0xFFFF).contains(port) else { return nil }
        let words: [UInt32]
        switch address {
        case .v4(let v4):
            words = [v4.address.sin_addr.s_addr]
            isIPv6 = false
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            words = withUnsafeBytes(of: &raw) { bytes in
                (0..<4).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
            }
            isIPv6 = true
        case .unixDomainSocket:
            return nil
        }
        text = words.map { Self.hex($0, digits: 8) }.joined() + ":" + Self.hex(UInt32(port), digits: 4)
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// How many connections each client holds, bounded per client (`WebService.maxConnectionsPerClient`).
final class WebClientCounts: Sendable {
    let limit: Int
    private let counts = Mutex<[WebClient: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts one more connection of `client`, or returns false (counting nothing) when it holds `limit` already.
    func admit(_ client: WebClient) -> Bool {
        counts.withLock { counts in
            let held = counts[client, default: 0]
            guard held < limit else { return false }
            counts[client] = held + 1
            return true
        }
    }

    /// Counts one connection of `client` less.
    func release(_ client: WebClient) {
        counts.withLock { counts in
            let held = counts[client, default: 0]
            counts[client] = held > 1 ? held - 1 : nil
        }
    }

    /// The connections `client` holds.
    func held(by client: WebClient) -> Int { counts.withLock { $0[client, default: 0] } }
}

/// Bounds the connections each client holds: when a connection becomes active, reading stops until its client is
/// known (`WebClient.identify`, on the thread pool: it reads the socket table); a client already holding its limit
/// has the new connection closed before a byte of it is read.
///
/// Without it, another local user could hold every connection the web app serves for good: keep-alive `GET /`
/// requests every few seconds need no token and keep each connection from ever being idle (SECURITY.md W-HOLD).
final class WebClientBoundHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private enum State {
        case identifying(readPending: Bool)
        case admitted(WebClient)
        case refused
    }

    private let counts: WebClientCounts
    private let threadPool: NIOThreadPool
    private var state = State.identifying(readPending: false)
    private var started = false

    init(counts: WebClientCounts, threadPool: NIOThreadPool = .singleton) {
        self.counts = counts
        self.threadPool = threadPool
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { identify(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        identify(context: context)
        context.fireChannelActive()
    }

    private func identify(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        guard let remote = context.channel.remoteAddress, let local = context.channel.localAddress else {
            state = .refused
            context.close(promise: nil)
            return
        }
        let loop = context.eventLoop
        let lookup = threadPool.runIfActive(eventLoop: loop) { WebClient.identify(remote: remote, local: local) }
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        lookup.whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success(let client): handler.decided(client: client, context: context)
            // The pool has shut down: the daemon is stopping, and the connection is closed unread.
            case .failure: handler.decided(client: nil, context: context)
            }
        }
    }

    private func decided(client: WebClient?, context: ChannelHandlerContext) {
        guard case .identifying(let readPending) = state else { return }
        guard let client, context.channel.isActive, counts.admit(client) else {
            state = .refused
            context.close(promise: nil)
            return
        }
        state = .admitted(client)
        if readPending { context.read() }
    }

    func read(context: ChannelHandlerContext) {
        switch state {
        case .identifying: state = .identifying(readPending: true)
        case .admitted: context.read()
        case .refused: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .admitted(let client) = state { counts.release(client) }
        state = .refused
        context.fireChannelInactive()
    }
}
