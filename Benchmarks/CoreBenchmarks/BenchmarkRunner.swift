import Benchmark

/// The entry point package-benchmark's `BenchmarkPlugin` would generate, written here instead: the plugin's generator
/// is a host tool that compiles swift-argument-parser and swift-system a second time, for the host, in every build
/// of the package (debug and release) for these four lines. `swift package benchmark` finds this target by its
/// folder (`Benchmarks/`), not by the plugin.
@main
struct BenchmarkRunner: BenchmarkRunnerHooks {
    static func registerBenchmarks() {
        _ = benchmarks()
    }
}
