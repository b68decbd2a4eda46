#if canImport(Glibc)
    import Glibc
#endif

/// Gives the memory of ended connections back to the system.
///
/// Each TLS session's buffers are freed when it ends, but glibc's allocator keeps freed memory in its arenas: a host
/// that opened and dropped sessions again and again (~150 a second, any key) grew the daemon from 22 MB to 459 MB
/// after 71,000 sessions, with 0 sessions up and about 3 MB live, until the unit's `MemoryMax` restarted it.
/// `malloc_trim(0)` returned it (to 54 MB). It walks every arena, so it runs at most every 10 s, and only after 64
/// connections or more have ended since the last one.
struct MemoryTrim {
    /// Connections that must have ended since the last trim.
    static let connections = 64
    /// Calls (one a second) between two trims at least.
    static let interval = 10

    private var trimmedAt = 0
    private var calls = 0

    /// Trims when enough connections ended (`connectionsEnded` is the running count) and enough time passed.
    mutating func afterChurn(connectionsEnded: Int) {
        calls += 1
        guard calls >= Self.interval, connectionsEnded - trimmedAt >= Self.connections else { return }
        calls = 0
        trimmedAt = connectionsEnded
        // Blocks this task for the walk (milliseconds); it runs on the tick's task, never on an event loop.
        _ = Self.mallocTrim?(0)
    }

    /// glibc's `malloc_trim`, which `<malloc.h>` declares and the Glibc module does not bring in: looked up once.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
}
