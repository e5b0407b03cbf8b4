// swift-tools-version: 6.1
import PackageDescription

/// Where Network.framework exists: the SDK's sockets and TLS go through it there (Socket.swift).
let applePlatforms: [Platform] = [.macOS, .iOS, .macCatalyst, .tvOS, .watchOS, .visionOS]

let package = Package(
    name: "Caucus",
    // What a video SDK's customers run, and what the server and the tests build on too:
    // platforms are package-wide. Every dependency allows these (swift-websocket and
    // swift-prometheus need the most: macOS 13, iOS 16); `Synchronization` (macOS 15, iOS 18)
    // is not used, locks come from NIOConcurrencyHelpers and counters from swift-atomics.
    // PlatformMinimumsTests keeps every target's sources within these.
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Caucus", targets: ["Caucus"]),
        .library(name: "CaucusCore", targets: ["CaucusCore"]),
        .library(name: "CaucusProtocol", targets: ["CaucusProtocol"]),
        .library(name: "CaucusServer", targets: ["CaucusServer"]),
        // The forwarding engine alone, for `Benchmarks/` (its own package) and servers of others.
        .library(name: "CaucusSFU", targets: ["CaucusSFU"]),
        // The recording's pure parts (muxer, recorder, clock), for `Benchmarks/`.
        .library(name: "CaucusRecording", targets: ["CaucusRecording"]),
        .executable(name: "caucus", targets: ["caucus"]),
        // Opus and VP8 through the system's libopus and libvpx (Linux; docs/media.md). Its
        // codecs exist with the `Codecs` trait only: a package that uses them enables it.
        .library(name: "CaucusCodecs", targets: ["CaucusCodecs"]),
    ],
    traits: [
        // Off by default, so that `swift run caucus serve` needs Swift alone: no codec library,
        // no pkg-config. `swift build --traits Codecs` (scripts/test, CI, the media benchmarks)
        // builds `caucus client`'s media and `caucus bench media-clients` against libopus and
        // libvpx (Debian: pkg-config libopus-dev libvpx-dev).
        .trait(
            name: "Codecs",
            description: "Real Opus and VP8 through the system's libopus and libvpx, found with pkg-config: CaucusCodecs, and the terminal client's media."
        )
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Network.framework under NIO, for the SDK on Apple platforms (already in the graph:
        // WSClient uses it there), and the atomics NIO itself uses (for hot-path counters).
        .package(url: "https://github.com/apple/swift-nio-transport-services.git", from: "1.28.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // Exact: CaucusMedia imports CNIOBoringSSL, which is not this package's public API
        // (see docs/media.md); any update must pass the DTLS contract tests first.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
    ],
    targets: [
        .target(
            name: "CaucusCore",
            dependencies: [.product(name: "Collections", package: "swift-collections")]
        ),
        // A JSON encoder that writes straight into bytes; knows nothing of Caucus.
        .target(name: "CaucusJSON"),
        // A strict RFC 8259 syntax check that every request and token passes before decoding.
        .target(name: "CaucusJSONSyntax"),
        .target(name: "CaucusProtocol", dependencies: ["CaucusCore", "CaucusJSON", "CaucusJSONSyntax"]),
        .target(
            name: "CaucusAuth",
            dependencies: ["CaucusCore", "CaucusJSONSyntax", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The store's contract, its values and the pure history projection: no database.
        .target(name: "CaucusStore", dependencies: ["CaucusCore", "CaucusProtocol", "CaucusJSON"]),
        // The embedded default: one SQLite file.
        .target(
            name: "CaucusStoreSQLite",
            dependencies: [
                "CaucusStore", "CaucusCore", "CaucusJSON", "CaucusProtocol",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The shared store: a PostgreSQL server, its client run as a service of the server.
        .target(
            name: "CaucusStorePostgres",
            dependencies: [
                "CaucusStore", "CaucusCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The state a store call shares between its caller and its work (`StoreCall`).
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // TLS to the database (`sslmode=prefer|require`).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "CaucusServer",
            dependencies: [
                "CaucusCore", "CaucusProtocol", "CaucusJSON", "CaucusAuth", "CaucusStore", "CaucusStoreSQLite",
                "CaucusStorePostgres", "CaucusMedia", "CaucusSFU", "CaucusJSONSyntax",
                // Where recordings lie, for the control API that lists, serves and deletes them.
                "CaucusRecording",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Atomics", package: "swift-atomics"),
                // The media port's datagram channel (DatagramBootstrap, recvmmsg).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                // ICE over TCP: RFC 4571's two-byte length framing.
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                // HTTPS and WSS (`--tls-cert`), and SIGHUP, which reloads the certificate.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            // The web console's HTML, CSS and ES modules are built into the binary, served as
            // they are (so `caucus` alone is the whole install).
            exclude: ["Console/Assets"],
            plugins: ["EmbedConsoleAssets"]
        ),
        // Turns Console/Assets into Swift source at build time, for CaucusServer.
        .plugin(name: "EmbedConsoleAssets", capability: .buildTool(), dependencies: ["EmbedConsoleAssetsTool"]),
        .executableTarget(name: "EmbedConsoleAssetsTool"),
        .target(
            name: "CaucusMedia",
            dependencies: [
                // MESSAGE-INTEGRITY is HMAC-SHA1.
                .product(name: "Crypto", package: "swift-crypto"),
                // For CNIOBoringSSL (DTLS, SRTP ciphers), reachable through this product only.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The server's selective forwarding on top of CaucusMedia's transport: the forwarding
        // engine, slot routing, loss repair and downlink estimation. Server-only: the SDK
        // (`Caucus`) never depends on it (PlatformMinimumsTests checks the graph).
        .target(name: "CaucusSFU", dependencies: ["CaucusMedia"]),
        // Recording without decoding: a WebM/Matroska writer, per-track recorders on one clock
        // per location (RTCP sender reports), and the timeline (docs/recording.md).
        .target(name: "CaucusRecording", dependencies: ["CaucusMedia", "CaucusJSON"]),
        .target(
            name: "Caucus",
            dependencies: [
                "CaucusProtocol", "CaucusCore",
                // Media: the client role of the transport (ICE, DTLS-SRTP) and the RTP
                // packetisers; not re-exported (`internal import`), so apps see only the SDK's types.
                "CaucusMedia",
                .product(name: "WSClient", package: "swift-websocket"),
                // wss: the trust roots an app adds (a private CA), and what a failed handshake says.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Each connection runs on its own event loop, so that an attempt given up
                // before the upgrade can be torn down with its channel (see Socket.swift).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // On Apple platforms the socket and TLS are Network.framework's (see Socket.swift).
                .product(
                    name: "NIOTransportServices", package: "swift-nio-transport-services",
                    condition: .when(platforms: applePlatforms)),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // WSClient takes a Logger; apps may pass their own.
                .product(name: "Logging", package: "swift-log"),
            ],
            // Apple's privacy manifest: no tracking, no data collected for us, and the one
            // required-reason API the SDK calls (monotonic time; see docs/sdk.md).
            resources: [.process("PrivacyInfo.xcprivacy")]
        ),
        .executableTarget(
            name: "caucus",
            dependencies: [
                "CaucusCore", "CaucusAuth", "CaucusServer", "CaucusStore", "CaucusStorePostgres", "Caucus", "CaucusProtocol", "CaucusJSON",
                // `caucus recording compose` reads a location's timeline.
                "CaucusRecording",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The load generator's lean WebSocket client and its latency histograms.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Atomics", package: "swift-atomics"),
                // `caucus client`'s tone and test pattern, and the real-codec load test: with the
                // `Codecs` trait only (`#if Codecs`); without it their options are refused.
                .target(name: "CaucusCodecs", condition: .when(traits: ["Codecs"])),
            ]
        ),
        // Real codecs on Linux, outside the SDK: libopus and libvpx (Debian's libopus-dev and
        // libvpx-dev, found through pkg-config). Never a dependency of `Caucus`. Without the
        // `Codecs` trait the libraries are not used and the codec sources are left out
        // (`#if Codecs`), so that a plain `swift build` of every target needs neither.
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .target(
            name: "CaucusCodecs",
            dependencies: [
                .target(name: "COpus", condition: .when(traits: ["Codecs"])),
                .target(name: "CVPX", condition: .when(traits: ["Codecs"])),
            ]
        ),
        .target(
            name: "CaucusTestSupport",
            dependencies: [
                "CaucusServer", "CaucusAuth", "CaucusCore", "CaucusPostgresTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/CaucusTestSupport"
        ),
        .testTarget(
            name: "CaucusCodecsTests", dependencies: ["CaucusCodecs", "CaucusMedia", "CaucusProcessTestSupport"],
            // FFmpeg's decoders (PyAV) read what CaucusCodecs encodes: IndependentDecoderTests runs it.
            exclude: ["ffmpeg_decode.py"]
        ),
        .testTarget(
            name: "CaucusCoreTests",
            dependencies: [
                "CaucusCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "CaucusAuthTests",
            dependencies: [
                "CaucusAuth", "CaucusCore", "CaucusProcessTestSupport",
                // jwt-kit mints and checks tokens in the interoperability tests.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "CaucusJSONTests",
            dependencies: [
                // Caucus's own scalar writers are tested here too, against JSONEncoder.
                "CaucusJSON", "CaucusProtocol", "CaucusCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "CaucusJSONSyntaxTests",
            dependencies: ["CaucusJSONSyntax", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // Blocking work of the tests (child processes) off Swift's cooperative pool.
        .target(name: "CaucusProcessTestSupport", path: "Tests/CaucusProcessTestSupport"),
        // Starts a throwaway PostgreSQL server for the tests that need a real one.
        .target(name: "CaucusPostgresTestSupport", path: "Tests/CaucusPostgresTestSupport"),
        .testTarget(
            name: "CaucusStoreTests",
            dependencies: [
                "CaucusStore", "CaucusStoreSQLite", "CaucusStorePostgres", "CaucusCore", "CaucusPostgresTestSupport",
                // Writes files of an older schema version, to migrate.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        .testTarget(
            name: "CaucusServerTests",
            dependencies: [
                "CaucusServer", "CaucusCore", "CaucusProtocol", "CaucusAuth", "CaucusTestSupport", "CaucusMediaTestSupport",
                "CaucusProcessTestSupport",
                // A location's timeline in a server's data folder, for the recordings routes.
                "CaucusRecording",
                // The restart tests read what a killed `caucus serve` left in its store.
                "CaucusStore", "CaucusStoreSQLite", "CaucusStorePostgres", "CaucusPostgresTestSupport",
                // The client-role WebRTC stack, against the server's media port, and the SFU's types.
                "CaucusMedia", "CaucusSFU",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                // The control API in process, and the WebSocket handler in a testing channel: no sockets.
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // The cluster tests' TCP proxy between a node and PostgreSQL.
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // The aiortc peer the media signalling tests start as a process.
            exclude: ["Scripts"]
        ),
        // The `caucus` command's pure parts (the media bench's shapes), tested in process.
        .testTarget(name: "CaucusCommandTests", dependencies: ["caucus"]),
        // A loopback UDP socket for the tests that put CaucusMedia on a real port.
        .target(
            name: "CaucusMediaTestSupport", dependencies: ["CaucusMedia", "CaucusSFU", "CaucusProcessTestSupport"],
            path: "Tests/CaucusMediaTestSupport"),
        .testTarget(
            name: "CaucusMediaTests",
            dependencies: [
                // The transport's tests, and the SFU's (CaucusSFU) beside them.
                "CaucusMedia", "CaucusSFU", "CaucusMediaTestSupport", "CaucusProcessTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // Real offers from other WebRTC stacks, read through #filePath.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CaucusRecordingTests",
            dependencies: [
                "CaucusRecording", "CaucusMedia", "CaucusProcessTestSupport",
                // Real Opus and VP8 frames for the files that ffprobe, ffmpeg and mkvinfo read;
                // real H.264 from x264 (X264Stream).
                "CaucusCodecs", "CaucusMediaTestSupport",
                // `caucus serve` as a process, serving the recordings these tests write.
                "CaucusTestSupport", "CaucusAuth",
            ]
        ),
        .testTarget(
            name: "CaucusTests",
            dependencies: [
                "Caucus", "CaucusServer", "CaucusCore", "CaucusAuth", "CaucusTestSupport",
                // PostgreSQL for the SDK against several nodes.
                "CaucusPostgresTestSupport",
                // Real Opus and VP8 for the SDK's media tests (never a dependency of `Caucus`),
                // and the media module's RTP types for the depacketising tests of the SDK's receiver.
                "CaucusCodecs", "CaucusMedia",
                // The server's slot rewriting, which the SDK's receive-slot tests play against.
                "CaucusSFU",
                // A recorded location's timeline and files, read back after the SDK published into
                // it; real H.264 from x264 to publish (X264Stream).
                "CaucusRecording", "CaucusMediaTestSupport",
                // The TCP proxy the bad-network tests put between the SDK and the server.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // Stand-ins for Apple's Network and UIKit, which AppleOnlyCodeTests compiles itself.
            exclude: ["AppleStandIns"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
