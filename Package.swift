// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Caucus",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Caucus", targets: ["Caucus"]),
        .library(name: "CaucusCore", targets: ["CaucusCore"]),
        .library(name: "CaucusProtocol", targets: ["CaucusProtocol"]),
        .library(name: "CaucusServer", targets: ["CaucusServer"]),
        .executable(name: "caucus", targets: ["caucus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "CaucusCore",
            dependencies: [.product(name: "Collections", package: "swift-collections")]
        ),
        .target(name: "CaucusProtocol", dependencies: ["CaucusCore"]),
        .target(name: "CaucusServer", dependencies: ["CaucusCore", "CaucusProtocol"]),
        .target(name: "Caucus", dependencies: ["CaucusProtocol"]),
        .executableTarget(
            name: "caucus",
            dependencies: [
                "CaucusCore",
                "CaucusServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "CaucusCoreTests",
            dependencies: [
                "CaucusCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "CaucusServerTests", dependencies: ["CaucusServer", "CaucusCore"]),
    ],
    swiftLanguageModes: [.v6]
)
