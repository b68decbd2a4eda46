// Only the test builds can import Testing; `make bench-build` compiles every target of the package in one release
// build, this one included, where it is empty.
#if canImport(Testing)
    public import Testing

    /// Waits until `condition` holds, checking every 20 ms, for at most `timeout`; records an issue naming
    /// `description` if it never does (checked once more after the deadline). The bound is generous (30 s): it only decides when a wait has failed, and the
    /// suites run hundreds of tests at once on a busy machine.
    @discardableResult
    public func eventually(
        _ description: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async -> Bool
    ) async -> Bool {
        // The condition is checked once more after the deadline: a process stalled past it (a busy machine
        // holding every thread) must not fail a wait whose condition came true meanwhile.
        let deadline = ContinuousClock.now + timeout
        while true {
            if await condition() { return true }
            guard ContinuousClock.now < deadline else { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting for: \(description)", sourceLocation: sourceLocation)
        return false
    }
#endif
