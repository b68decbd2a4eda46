// swift-tools-version:6.1
import PackageDescription

// Micro benchmarks of InterPayCore and of one engine step, kept in their own package so that the main package's dependency graph, build
// and CI time stay as they are. Run them from the repository root with `make bench-micro`, or directly with
// `swift package --package-path Benchmarks benchmark`.
let package = Package(
    name: "InterPayBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise the checkout's directory name.
        .package(name: "InterPay", path: ".."),
        // The malloc interposer gives the malloc counts; the default "RuntimeInterposer" trait (ARC counts on
        // Linux with Swift 6.3) is left off.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: [
                .product(name: "InterPayCore", package: "InterPay"),
                .product(name: "InterPayEngine", package: "InterPay"),
                .product(name: "InterPayStore", package: "InterPay"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
