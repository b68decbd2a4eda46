// Only the test builds can import Testing; `make bench-build` compiles every target of the package in one release
// build, this one included, where it is empty.
#if canImport(Testing)
    public import Testing

    /// Waits until `condition` holds, checking every 20 ms, for at most `timeout`; records an issue naming
    /// `description` if it never does. The bound is generous (30 s): it only decides when a wait has failed, and the
    /// suites run hundreds of tests at once on a busy machine.
    @discardableResult
    public func eventually(
        _ description: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting for: \(description)", sourceLocation: sourceLocation)
        return false
    }
#endif
