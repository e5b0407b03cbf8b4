import Foundation
import Testing

/// `swift run caucus serve` on a fresh machine, with Swift and nothing else: without the
/// package's `Codecs` trait (off by default) nothing a plain `swift build` builds needs
/// libopus, libvpx or pkg-config. These tests are built with the trait (scripts/test), so they
/// check the build without it from outside: the manifest, where only the trait brings the
/// codec libraries in, and the sources that build compiles, typechecked as it compiles them
/// (no `Codecs` condition, no codec module to import). A real build without the trait, in a
/// folder of its own, takes many minutes here; these take seconds.
@Suite struct CodecFreeBuildTests {
    /// The targets that are, or reach, the codec libraries.
    static let codecTargets: Set<String> = ["CaucusCodecs", "COpus", "CVPX"]

    /// Every target `swift build` builds (all but tests) reaches the codec targets only under
    /// the trait, which no default enables; `caucus` reaches them for its media.
    @Test func withoutTheTraitNoTargetOfTheBuildDependsOnTheCodecLibraries() async throws {
        let manifest = try #require(try JSONSerialization.jsonObject(with: try await Typecheck.packageManifest()) as? [String: Any])
        let traits = try #require(manifest["traits"] as? [[String: Any]])
        let enabledBy = Dictionary(uniqueKeysWithValues: traits.compactMap { trait in
            (trait["name"] as? String).map { ($0, trait["enabledTraits"] as? [String] ?? []) }
        })
        #expect(enabledBy["Codecs"] != nil, "no trait Codecs in Package.swift")
        var defaults = Set<String>()
        var pending = enabledBy["default"] ?? []
        while let trait = pending.popLast() {
            if defaults.insert(trait).inserted { pending += enabledBy[trait] ?? [] }
        }
        #expect(!defaults.contains("Codecs"), "the default traits enable Codecs: \(defaults.sorted())")

        var unconditional: [String] = []
        var caucusUnderTheTrait = false
        for target in try #require(manifest["targets"] as? [[String: Any]]) where target["type"] as? String != "test" {
            let name = try #require(target["name"] as? String)
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                guard let (dependencyName, traits) = Self.targetDependency(dependency), Self.codecTargets.contains(dependencyName) else { continue }
                if traits != ["Codecs"] { unconditional.append("\(name) → \(dependencyName) (traits: \(traits))") }
                if name == "caucus", dependencyName == "CaucusCodecs", traits == ["Codecs"] { caucusUnderTheTrait = true }
            }
        }
        #expect(unconditional.isEmpty, "built without the trait, these need libopus or libvpx: \(unconditional)")
        #expect(caucusUnderTheTrait, "caucus does not depend on CaucusCodecs under the Codecs trait")
    }

    /// A plain `swift build` builds CaucusCodecs too (every target): without the trait it must
    /// compile with neither library's module at hand.
    @Test func withoutTheTraitTheCodecTargetTypechecksWithNeitherLibrary() async throws {
        let checked = try await Typecheck.swiftc(
            ["-typecheck", "-swift-version", "6", "-parse-as-library", "-module-name", "CaucusCodecs", "-D", "SWIFT_PACKAGE", "-D", "DEBUG"]
                + Self.swiftFiles(under: "Sources/CaucusCodecs"))
        #expect(checked.succeeded, "\(checked.output)")
        #expect(!checked.output.contains("warning:"), "\(checked.output)")
    }

    /// The `caucus` executable without the trait: its sources typecheck in Swift 6 mode, without
    /// warnings, against the modules this build made but CaucusCodecs.
    @Test func withoutTheTraitTheCaucusCommandTypechecksWithoutTheCodecs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-without-codecs-\(UUID().uuidString)")
        let modules = folder.appendingPathComponent("Modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let built = Typecheck.root.appendingPathComponent(".build/debug/Modules").resolvingSymlinksInPath()
        var linked = 0
        for entry in try FileManager.default.contentsOfDirectory(atPath: built.path) where !entry.hasPrefix("CaucusCodecs.") {
            try FileManager.default.createSymbolicLink(at: modules.appendingPathComponent(entry), withDestinationURL: built.appendingPathComponent(entry))
            linked += 1
        }
        try #require(linked > 0, "no modules in \(built.path): run swift build --traits Codecs first")
        let arguments = try Typecheck.buildModules().map { $0 == built.path ? modules.path : $0 }
        try #require(arguments.contains(modules.path), "\(arguments)")
        // The check would prove nothing if the codecs could still be reached.
        let probe = folder.appendingPathComponent("Probe.swift")
        try """
            #if Codecs || canImport(CaucusCodecs) || canImport(COpus) || canImport(CVPX)
            #error("the codecs are reachable: this would not be the build without them")
            #endif
            """.write(to: probe, atomically: true, encoding: .utf8)
        let checked = try await Typecheck.swiftc(
            ["-typecheck", "-swift-version", "6", "-parse-as-library", "-module-name", "caucus", "-package-name", Self.packageName]
                + ["-D", "SWIFT_PACKAGE", "-D", "DEBUG"] + arguments + Self.swiftFiles(under: "Sources/caucus") + [probe.path])
        #expect(checked.succeeded, "\(checked.output)")
        #expect(!checked.output.contains("warning:"), "\(checked.output)")
    }

    /// The package name SwiftPM gives this package's modules (`-package-name`): its identity,
    /// the checkout folder's name in lower case, as a C identifier. Within it, `caucus`'s
    /// conformances of the package's own types are not retroactive (no warning).
    static var packageName: String {
        String(Typecheck.root.lastPathComponent.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// A dependency on a target of this package (`byName` or `target`): its name and the
    /// traits of its condition (none: unconditional).
    static func targetDependency(_ dependency: [String: Any]) -> (String, [String])? {
        guard let pair = (dependency["byName"] ?? dependency["target"]) as? [Any], let name = pair.first as? String else { return nil }
        let condition = pair.count > 1 ? pair[1] as? [String: Any] : nil
        return (name, condition?["traits"] as? [String] ?? [])
    }

    static func swiftFiles(under folder: String) throws -> [String] {
        let base = Typecheck.root.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
        var files: [String] = []
        while let url = walker?.nextObject() as? URL {
            if url.pathExtension == "swift" { files.append(url.path) }
        }
        try #require(!files.isEmpty, "no Swift files under \(folder)")
        return files.sorted()
    }
}
