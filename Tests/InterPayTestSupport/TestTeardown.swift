import Synchronization

/// What the running test started and must undo when it ends: temporary directories, nodes, sessions, connections.
///
/// A test stops what it starts at its end, but a failed `#require` or a call that throws leaves before that line.
/// Everything a test starts therefore also registers its undoing here (`TemporaryDirectory`, `Node.testing`, the
/// scripted peers), and a suite marked `.tearsDown` runs it all when each of its tests ends, however it ended: the
/// last thing started is undone first. Outside such a test, registering does nothing.
public final class TestTeardown: Sendable {
    /// The teardown of the test running on this task, if its suite is marked `.tearsDown`.
    @TaskLocal public static var current: TestTeardown?

    private let steps = Mutex<[@Sendable () async -> Void]>([])

    /// An empty teardown, for a test's scope.
    public init() {}

    /// Runs `step` when the current test ends, if the test runs under `.tearsDown`. A step must be safe to run after
    /// the test did the same itself (stopping twice, removing what is gone).
    public static func atEnd(_ step: @escaping @Sendable () async -> Void) {
        current?.steps.withLock { $0.append(step) }
    }

    /// Runs every registered step, the last registered first, and forgets them.
    public func run() async {
        let registered = steps.withLock { steps in
            defer { steps.removeAll() }
            return steps
        }
        for step in registered.reversed() { await step() }
    }
}

// Only the test builds can import Testing (see Eventually.swift).
#if canImport(Testing)
    public import Testing

    /// A suite trait: each of the suite's tests runs with a `TestTeardown` of its own, run when the test ends, also
    /// when it throws, so that nothing a test started outlives it.
    public struct TearsDownWhatItStarts: SuiteTrait, TestTrait, TestScoping {
        /// The trait (`.tearsDown` on a suite).
        public init() {}

        /// The suite's nested suites' tests too.
        public var isRecursive: Bool { true }

        /// Each test function gets a scope (a parameterized one, one for all its cases); a suite itself none.
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
            test.isSuite ? nil : self
        }

        /// Runs `function` with a fresh `TestTeardown.current`, then runs what it registered, whether it returned or
        /// threw.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            let teardown = TestTeardown()
            do {
                try await TestTeardown.$current.withValue(teardown) { try await function() }
            } catch {
                await teardown.run()
                throw error
            }
            await teardown.run()
        }
    }

    extension Trait where Self == TearsDownWhatItStarts {
        /// Undo what each test started when it ends, however it ends (`TestTeardown`).
        public static var tearsDown: Self { Self() }
    }
#endif
