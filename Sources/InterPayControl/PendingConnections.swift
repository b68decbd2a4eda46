import NIOCore
import Synchronization

/// Accepted connections between the channel initializer and `serve`, so that NIO can never drop one unfinished.
///
/// When the listener closes, NIO drops connections it accepted but the accept loop has not taken yet, and a dropped
/// `NIOAsyncChannel` traps ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#2813). Every new
/// connection is therefore also held here: `serve` takes it out before running it, and when the server stops it
/// closes whatever is left, and refuses connections from then on.
final class PendingConnections: Sendable {
    typealias Connection = NIOAsyncChannel<ControlLine, ByteBuffer>

    private struct State {
        var connections: [ObjectIdentifier: Connection] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    /// Makes and records the async channel for a new connection; throws once the server is stopping.
    func admit(_ channel: any Channel, make: () throws -> Connection) throws -> Connection {
        try state.withLock { state in
            guard !state.closed else { throw ChannelError.ioOnClosedChannel }
            let connection = try make()
            state.connections[ObjectIdentifier(channel)] = connection
            return connection
        }
    }

    /// Takes a connection out to serve it; false when the server already closed it.
    func take(_ channel: any Channel) -> Bool {
        state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) != nil }
    }

    /// Refuses new connections and closes those never served.
    func closeAll() async {
        let leftovers = state.withLock { state in
            state.closed = true
            defer { state.connections.removeAll() }
            return Array(state.connections.values)
        }
        await withDiscardingTaskGroup { group in
            for connection in leftovers {
                // Closing only: a connection that fails to close is already closed.
                group.addTask { try? await connection.executeThenClose { _, _ in } }
            }
        }
    }

    /// Reopens for a new run of the server.
    func reopen() {
        state.withLock { $0.closed = false }
    }
}
