public import NIOCore
import Synchronization

/// A connection's `NIOAsyncChannel` from the moment its channel initializer makes it, finished and closed if it is
/// dropped before anyone served it.
///
/// A listener hands each accepted connection to its accept loop through a buffer; when the listener closes (the
/// daemon stops), NIO drops the connections it accepted but the loop has not taken, including ones whose initializer
/// completes only afterwards. A dropped `NIOAsyncChannel` made with `init(wrappingChannelSynchronously:)` traps
/// ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#2813): the last reference to its writer goes
/// in `channelActive` or with the buffer, on an event loop, and takes the process down with SIGILL. Every
/// connection is therefore made inside this guard, whose `deinit` finishes the writer and closes the channel unless
/// `take()` handed the channel to a server or dialer that runs `executeThenClose` on it.
public final class GuardedAsyncChannel<Inbound: Sendable, Outbound: Sendable>: Sendable {
    private let channel: NIOAsyncChannel<Inbound, Outbound>
    private let taken = Atomic<Bool>(false)

    /// Guards `channel` (made by the caller on the channel's event loop).
    public init(_ channel: NIOAsyncChannel<Inbound, Outbound>) {
        self.channel = channel
    }

    /// The underlying NIO channel, for its addresses and event loop; its async wrapper stays guarded.
    public var underlying: any Channel { channel.channel }

    /// Hands the async channel over, once: the caller must run `executeThenClose` on it. Nil if it was taken already.
    public func take() -> NIOAsyncChannel<Inbound, Outbound>? {
        let (exchanged, _) = taken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        return exchanged ? channel : nil
    }

    deinit {
        guard !taken.load(ordering: .acquiring) else { return }
        // Never served: `executeThenClose` with nothing to do finishes the writer (what keeps its deinit from
        // trapping) and closes the channel. It is async and a deinit cannot wait: the task holds the channel until
        // then, and nobody needs its outcome (a channel that fails to close is closed already).
        let channel = self.channel
        Task { try? await channel.executeThenClose { _, _ in } }
    }
}
