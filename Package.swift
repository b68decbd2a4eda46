// swift-tools-version:6.0
import PackageDescription

/// Settings every target shares: Swift 6 language mode plus the upcoming features we rely on.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "InterPay",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "InterPayCore", targets: ["InterPayCore"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0")
    ],
    targets: [
        // MARK: System libraries (each imported by exactly one wrapper module)
        .systemLibrary(
            name: "CDNSSD",
            pkgConfig: "avahi-compat-libdns_sd",
            providers: [.apt(["libavahi-compat-libdnssd-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        // MARK: Core
        .target(
            name: "InterPayCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .testTarget(
            name: "InterPayCoreTests",
            dependencies: ["InterPayCore", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CDNSSDTests", dependencies: ["CDNSSD"], swiftSettings: swiftSettings),
        .testTarget(name: "CCurlTests", dependencies: ["CCurl"], swiftSettings: swiftSettings),
    ]
)
