// Only the test builds can import Testing; `make bench-build` compiles every target of the package in one release
// build, this one included, where it is empty.
#if canImport(Testing)
    public import Testing

    /// Waits until `condition` holds, checking it every 20 ms, for at most `timeout` of checks; records an issue
    /// naming `description` if it never does. The bound is generous (30 s): it only decides when a wait has failed,
    /// and the suites run hundreds of tests at once on a busy machine. It counts checks, not wall time: a test process
    /// whose threads are all held for a while (a machine busy with compilers, other tests blocking theirs) stalls
    /// every wait alike, and a wait that woke after such a stall still gets its checks.
    @discardableResult
    public func eventually(
        _ description: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async -> Bool
    ) async -> Bool {
        let interval = Duration.milliseconds(20)
        for _ in 0..<max(1, Int(timeout / interval)) {
            if await condition() { return true }
            try? await Task.sleep(for: interval)
        }
        if await condition() { return true }
        Issue.record("timed out waiting for: \(description)", sourceLocation: sourceLocation)
        return false
    }
#endif
