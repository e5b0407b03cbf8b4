// swift-tools-version: 6.1
import PackageDescription

/// Benchmarks of Caucus's hot paths with ordo-one/benchmark, which counts allocations: a package
/// of their own, so `swift build` and CI of the main package never build them.
/// Run: `cd Benchmarks && swift package --allow-writing-to-package-directory benchmark`.
let package = Package(
    name: "CaucusBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Caucus", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Support",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "Forwarding",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "CaucusSFU", package: "Caucus"),
            ],
            path: "Benchmarks/Forwarding",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Shell",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "CaucusServer", package: "Caucus"),
                .product(name: "CaucusSFU", package: "Caucus"),
                .product(name: "CaucusCore", package: "Caucus"),
            ],
            path: "Benchmarks/Shell",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Recording",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "CaucusRecording", package: "Caucus"),
            ],
            path: "Benchmarks/Recording",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
