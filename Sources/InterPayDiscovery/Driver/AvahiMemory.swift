import CDNSSD

#if canImport(Glibc)
    import Glibc
#endif

/// Makes every allocation of Avahi's libraries in this process zeroed, before the first DNS-SD call.
///
/// Avahi's `libdns_sd` (0.8, as Debian ships it, and upstream's `compat.c` as of this writing) allocates each
/// `DNSServiceRef`'s record with `avahi_new`, which does not zero it, and sets only the callback of the ref's own
/// kind. When avahi-daemon goes away, the client's failure callback calls the first of the browse, resolve, domain
/// and query callbacks that is not null: for a resolve or a query ref, whatever pointer the reused memory held. The
/// daemon then jumped into the heap and died, when avahi-daemon stopped while a resolution was in flight (seen in the
/// `avahi-restart` scenario, about one run in ten; the core showed `DNSServiceProcessResult` →
/// `avahi_simple_poll_dispatch` → `dbus_connection_dispatch` → a call to a heap address). `avahi_set_allocator`, the
/// library's own hook, takes an allocator for all of Avahi's allocations: with one whose `malloc` zeroes, those
/// callbacks are null, and the failure reaches the ref's own callback as an error. It costs a `memset` per Avahi
/// allocation, a few per DNS-SD operation.
enum AvahiMemory {
    /// Installs the allocator once; later calls do nothing.
    static func zeroAllocations() {
        _ = installed
    }

    private static let installed: Bool = {
        // Avahi keeps the pointer ("the structure is not copied"): allocated once, never freed.
        let allocator = UnsafeMutablePointer<AvahiAllocator>.allocate(capacity: 1)
        allocator.initialize(
            to: AvahiAllocator(
                malloc: { size in calloc(1, size) },
                free: { pointer in free(pointer) },
                realloc: { pointer, size in realloc(pointer, size) },
                calloc: { count, size in calloc(count, size) }))
        avahi_set_allocator(allocator)
        return true
    }()
}
