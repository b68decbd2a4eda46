// swift-tools-version:5.4
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's entry point to `<Target>_main` and links
// `main` to it, which leaves no room for libFuzzer's own `main`. The harnesses are written for Swift 6 all the same.
import PackageDescription

// libFuzzer targets for InterPay's untrusted inputs: peer frames (FuzzFrames) and control-socket request lines
// (FuzzControl). Build and run them with `make fuzz` (or `make test-fuzz`) from the repository root; the build needs
// `-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing` (see scripts/fuzz).
let package = Package(
    name: "InterPayFuzz",
    dependencies: [
        .package(name: "InterPay", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "FuzzFrames",
            dependencies: [
                .product(name: "InterPayCore", package: "InterPay")
            ],
            swiftSettings: [.unsafeFlags(["-swift-version", "6"])]
        ),
        .executableTarget(
            name: "FuzzControl",
            dependencies: [
                .product(name: "InterPayControl", package: "InterPay"),
                .product(name: "InterPayContract", package: "InterPay"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: [.unsafeFlags(["-swift-version", "6"])]
        ),
    ]
)
