// swift-tools-version:6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode plus the upcoming features we rely on.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Linux only (Debian 12 and later): discovery uses Avahi's libdns_sd, the service systemd, and the release binaries
// are linked with --static-swift-stdlib. No `platforms`: it can name only Apple platforms, and none is supported.
let package = Package(
    name: "InterPay",
    products: [
        .library(name: "InterPayCore", targets: ["InterPayCore"]),
        // The fuzz targets in Fuzz/ build against these two.
        .library(name: "InterPayContract", targets: ["InterPayContract"]),
        .library(name: "InterPayControl", targets: ["InterPayControl"]),
        .library(name: "InterPayControlClient", targets: ["InterPayControlClient"]),
        .executable(name: "interpayd", targets: ["interpayd"]),
        .executable(name: "interpay", targets: ["interpay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        // Metrics (issue W): the modules emit through swift-metrics; the daemon exports them with swift-prometheus.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The web app on loopback (issue J). No default traits: neither swift-configuration nor full Foundation is needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        // The micro benchmarks (Benchmarks/, `make bench-micro`). The malloc interposer gives the malloc counts; the
        // default "RuntimeInterposer" trait (ARC counts on Linux with Swift 6.3) is left off.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // MARK: System libraries (each imported by exactly one wrapper module)
        // No pkgConfig: its flags for avahi-compat-libdns_sd carry -D_REENTRANT, which SwiftPM drops with a warning on
        // every build; shim.h includes the header by its path instead (Debian: libavahi-compat-libdnssd-dev).
        .systemLibrary(name: "CDNSSD"),
        // Headers only: InterPayRates loads libcurl itself at its first transfer (LibCurl.swift), so nothing links it.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // SQLite's process-wide settings, which GRDB (linked to the same libsqlite3) does not offer.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),

        // MARK: Core
        // The one strict JSON reader (numbers kept as text, duplicate members refused while parsing): frames,
        // control requests and exchange-rate bodies.
        .target(name: "InterPayJSON", swiftSettings: swiftSettings),
        .target(
            name: "InterPayCore",
            dependencies: ["InterPayJSON", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),

        // MARK: Services
        // The catalogue of the daemon's metrics (names, label values, help) over swift-metrics' API: every module
        // emits through it, so that the names and the bounded label sets live in one place.
        .target(
            name: "InterPayMetrics",
            dependencies: [.product(name: "CoreMetrics", package: "swift-metrics")],
            swiftSettings: swiftSettings
        ),
        // NIO's async channels guarded so that one dropped unserved (a listener closing) cannot trap the process.
        .target(
            name: "InterPayChannels",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "InterPayDiscovery",
            dependencies: [
                "CDNSSD", "InterPayCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "InterPayTransport",
            dependencies: [
                "InterPayChannels", "InterPayCore", "InterPayMetrics",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "InterPayStore",
            dependencies: ["CSQLite", "InterPayCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "InterPayRates",
            dependencies: [
                "CCurl", "InterPayCore", "InterPayJSON", "InterPayMetrics",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The control contract: the methods, their params and results, the events, JSON-RPC's values and the one
        // presenter of peers, IDs, amounts and states. No NIO: the daemon, the CLI and the web app share it.
        .target(
            name: "InterPayContract",
            dependencies: ["InterPayCore", "InterPayJSON"],
            swiftSettings: swiftSettings
        ),
        // The control socket's NIO server, over the contract.
        .target(
            name: "InterPayControl",
            dependencies: [
                "InterPayChannels", "InterPayContract", "InterPayControlClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The control socket's client (blocking POSIX I/O) and where the socket and the configuration are: what the
        // CLI links, without NIO or the server.
        .target(
            name: "InterPayControlClient",
            dependencies: ["InterPayContract"],
            swiftSettings: swiftSettings
        ),
        // The payment engine: each step one ledger transaction, then the stored bytes on the link (issue H).
        .target(
            name: "InterPayEngine",
            dependencies: [
                "InterPayCore", "InterPayMetrics", "InterPayStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The web app: the control method table over HTTP on loopback, the pages, the access checks (issue J).
        .target(
            name: "InterPayWeb",
            dependencies: [
                "InterPayContract", "InterPayMetrics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The pages are compiled in at build time (the EmbedWebAssets plugin, from Assets/): an installed
            // daemon needs no data files beside it.
            exclude: ["Assets"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedWebAssets"]
        ),
        .executableTarget(name: "embed-web-assets", swiftSettings: [.swiftLanguageMode(.v6)]),
        .plugin(name: "EmbedWebAssets", capability: .buildTool(), dependencies: ["embed-web-assets"]),
        .target(
            name: "InterPayDaemon",
            dependencies: [
                "InterPayCore", "InterPayDiscovery", "InterPayTransport", "InterPayStore", "InterPayContract",
                "InterPayControl", "InterPayControlClient", "InterPayRates", "InterPayEngine", "InterPayWeb",
                "InterPayMetrics",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables
        .executableTarget(
            name: "interpayd",
            dependencies: [
                "InterPayDaemon", "InterPayControl", "InterPayControlClient", "InterPayCore", "InterPayWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "interpay",
            dependencies: [
                "InterPayControlClient", "InterPayContract", "InterPayCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // `make bench`: the engine measured in-process against its physical baselines (docs/performance.md).
        .executableTarget(
            name: "interpay-bench",
            dependencies: [
                "InterPayCore", "InterPayDaemon", "InterPayStore", "InterPayTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),

        // Micro benchmarks of InterPayCore and of one engine step on a real ledger file (package-benchmark: time and
        // mallocs per operation). In this package, not one of its own, so that `make test` compiles the release
        // build once for the install check and every benchmark.
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: [
                "InterPayCore", "InterPayEngine", "InterPayStore", "InterPayContract",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),

        // The floor under `interpay status`'s start-up figure: only the argument parser's work, linked as the CLI is
        // (`scripts/bench-lan --only cli`).
        .executableTarget(
            name: "cli-parse-floor",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/CLIParseFloor",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "InterPayTestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/InterPayTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterPayCoreTests",
            dependencies: ["InterPayCore", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "InterPayJSONTests", dependencies: ["InterPayJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "CDNSSDTests", dependencies: ["CDNSSD"], swiftSettings: swiftSettings),
        .testTarget(
            name: "InterPayDiscoveryTests", dependencies: ["InterPayTestSupport", "InterPayDiscovery"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "InterPayStoreTests",
            dependencies: [
                "InterPayTestSupport", "InterPayStore", "InterPayCore",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterPayControlTests",
            dependencies: [
                "InterPayControl", "InterPayControlClient", "InterPayContract",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterPayTransportTests",
            dependencies: [
                "InterPayTestSupport",
                "InterPayTransport",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterPayDaemonTests",
            dependencies: [
                "InterPayTestSupport", "InterPayDaemon", "InterPayControl", "InterPayControlClient", "InterPayContract",
                "InterPayCore",
                "InterPayStore",
                "InterPayTransport", "InterPayEngine", "InterPayMetrics", "InterPayWeb",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterPayEngineTests",
            dependencies: [
                "InterPayTestSupport", "InterPayEngine", "InterPayCore", "InterPayMetrics", "InterPayStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterPayWebTests",
            dependencies: [
                "InterPayWeb", "InterPayControl", "InterPayContract",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterPayRatesTests",
            dependencies: [
                "InterPayTestSupport", "CCurl",
                "InterPayRates", "InterPayCore", "InterPayStore", "InterPayDaemon",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
