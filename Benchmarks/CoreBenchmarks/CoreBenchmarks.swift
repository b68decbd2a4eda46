import Benchmark
import Foundation

/// Every InterPayCore micro benchmark; `BenchmarkRunner` (BenchmarkRunner.swift) runs this closure.
///
/// Each iteration runs the measured operation 1000 times (`scalingFactor: .kilo`); results are per operation.
/// With `INTERPAY_BENCH_SMOKE=1` in the environment every benchmark runs only a few iterations: a quick check
/// that they all build and run, whose numbers mean nothing.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["INTERPAY_BENCH_SMOKE"] == "1"
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: smoke ? 1 : 10,
        scalingFactor: .kilo,
        maxDuration: smoke ? .milliseconds(100) : .seconds(2),
        maxIterations: smoke ? 3 : 1_000
    )
    FrameCodecBenchmarks.register()
    MoneyBenchmarks.register()
    PeerIDBenchmarks.register()
    LifecycleBenchmarks.register()
    EngineStepBenchmarks.register()
    ControlAnswerBenchmarks.register()
}
