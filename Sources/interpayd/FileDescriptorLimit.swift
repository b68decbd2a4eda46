import Foundation
import InterPayWeb

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
///
/// Every session, unauthenticated connection, dial and ledger file takes a descriptor; the sessions are bounded
/// (`limits.max_sessions`, `limits.max_unauthenticated`) well below the hard limit, but the usual soft limit of
/// 1024 is close to those bounds, so the daemon raises its soft limit to the hard one at start.
enum FileDescriptorLimit {
    /// Raises the soft limit to the hard limit. Returns the limit now in force, or the error text when the limits
    /// cannot be read or changed (the daemon then runs with the limit it has).
    static func raiseSoftToHard() -> Result<UInt64, FileDescriptorLimitError> {
        var limit = rlimit()
        guard getrlimit(resourceNOFILE, &limit) == 0 else {
            return .failure(.init(reason: "getrlimit: \(String(cString: strerror(errno)))"))
        }
        guard limit.rlim_cur < limit.rlim_max else { return .success(UInt64(limit.rlim_cur)) }
        let soft = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(resourceNOFILE, &limit) == 0 else {
            return .failure(
                .init(reason: "setrlimit to \(limit.rlim_max) (soft \(soft)): \(String(cString: strerror(errno)))"))
        }
        return .success(UInt64(limit.rlim_cur))
    }

    /// The soft limit now, or nil when it cannot be read.
    static func current() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(resourceNOFILE, &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// The descriptors the daemon may need with these limits: every session and unauthenticated connection, up to
    /// 64 closing connections, the web app's connections (`WebService.maxConnections`), and a reserve for the
    /// ledger, the control socket, dials and the runtime (which crashes, rather than fails, when it cannot get a
    /// descriptor for a timer).
    static func needed(maxSessions: Int, maxUnauthenticated: Int) -> UInt64 {
        UInt64(maxSessions + maxUnauthenticated + 64 + WebService.maxConnections + 128)
    }

    #if canImport(Glibc)
        private static let resourceNOFILE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceNOFILE = RLIMIT_NOFILE
    #endif
}

/// Why the descriptor limit could not be raised.
struct FileDescriptorLimitError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
