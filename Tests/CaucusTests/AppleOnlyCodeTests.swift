import Foundation
import Testing

/// The Apple-only network sources (PlatformNetworkSources.swift, and TrustedTLSOptions.swift:
/// the trust roots an app adds, in Network.framework's TLS) are never compiled by a build
/// on this Linux machine: `canImport(Network)` is false here, and there is no Apple SDK. This
/// typechecks those files, in Swift 6 mode, against stand-in `Security`, `Network` and `UIKit` modules
/// (AppleStandIns/) declaring just the API it calls, so that the Apple branch at least parses,
/// finds its names and meets strict concurrency. It is not an Apple build: the stand-ins are
/// this package's reading of Apple's interfaces, and only a real build can show a misreading.
@Suite struct AppleOnlyCodeTests {
    @Test func theAppleOnlySourcesTypecheckAgainstStandInsForSecurityNetworkAndUIKit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let standIns = Typecheck.root.appendingPathComponent("Tests/CaucusTests/AppleStandIns")
        // Security first: Network's stand-in imports it, as Apple's does.
        for module in ["Security", "Network", "UIKit"] {
            let built = try await Typecheck.swiftc([
                "-swift-version", "6", "-parse-as-library", "-emit-module", "-module-name", module, "-I", folder.path,
                "-emit-module-path", folder.appendingPathComponent("\(module).swiftmodule").path,
                standIns.appendingPathComponent("\(module).swift").path,
            ])
            try #require(built.succeeded, "the \(module) stand-in: \(built.output)")
        }
        // Without the stand-ins found, the Apple branch would be skipped and prove nothing.
        let probe = folder.appendingPathComponent("Probe.swift")
        try """
            #if !canImport(Network) || !canImport(UIKit) || !canImport(Security)
            #error("the stand-ins were not found: the Apple branch would not be checked")
            #endif
            """.write(to: probe, atomically: true, encoding: .utf8)
        let sources = ["NetworkWatcher.swift", "NetworkPathChanges.swift", "PlatformNetworkSources.swift", "TrustedTLSOptions.swift"].map {
            Typecheck.root.appendingPathComponent("Sources/Caucus/Network/\($0)").path
        }
        let checked = try await Typecheck.swiftc(
            ["-typecheck", "-swift-version", "6", "-module-name", "CaucusAppleCheck", "-I", folder.path]
                + Typecheck.buildModules() + sources + [probe.path])
        #expect(checked.succeeded, "\(checked.output)")
        #expect(!checked.output.contains("warning:"), "\(checked.output)")
    }
}
