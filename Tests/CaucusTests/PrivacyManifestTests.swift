import Foundation
import Testing

/// The SDK ships Apple's privacy manifest (`Sources/Caucus/PrivacyInfo.xcprivacy`), and it
/// says what the SDK's sources do: no tracking, no data collected for Caucus itself (what an
/// app sends through a session goes to the app's own server, and the app declares it), and
/// every required-reason API category the sources call — no more, no fewer.
@Suite struct PrivacyManifestTests {
    static let root = PlatformMinimumsTests.root
    static let manifestPath = "Sources/Caucus/PrivacyInfo.xcprivacy"

    /// Apple's required-reason categories, and the calls that put a source in each.
    static let categories: [(category: String, pattern: String)] = [
        ("NSPrivacyAccessedAPICategorySystemBootTime", #"\b(NIODeadline\.now|DispatchTime\.now|mach_absolute_time|mach_continuous_time|systemUptime|ContinuousClock|SuspendingClock)\b"#),
        ("NSPrivacyAccessedAPICategoryUserDefaults", #"\bUserDefaults\b"#),
        ("NSPrivacyAccessedAPICategoryFileTimestamp", #"\b(creationDate|modificationDate|contentModificationDate|attributesOfItem|getattrlist|fstat|lstat)\b"#),
        ("NSPrivacyAccessedAPICategoryDiskSpace", #"\b(volumeAvailableCapacity\w*|systemFreeSize|statfs|statvfs)\b"#),
        ("NSPrivacyAccessedAPICategoryActiveKeyboards", #"\bactiveInputModes\b"#),
    ]

    static func manifest() throws -> [String: Any] {
        let data = try Data(contentsOf: root.appendingPathComponent(manifestPath))
        return try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    /// The categories `text` calls into, comments left out.
    static func categoriesUsed(in text: String) throws -> Set<String> {
        var used = Set<String>()
        for (category, pattern) in categories {
            // Simple word boundaries: Unicode's take `UserDefaults.standard` for one word.
            let rule = try Regex(pattern).wordBoundaryKind(.simple)
            for line in text.split(separator: "\n") {
                let code = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                if code.firstMatch(of: rule) != nil { used.insert(category) }
            }
        }
        return used
    }

    @Test func theManifestIsAPlistThatTracksNothingAndCollectsNothing() throws {
        let manifest = try Self.manifest()
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        #expect((manifest["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
    }

    @Test func theManifestDeclaresExactlyTheRequiredReasonAPIsTheSDKCalls() throws {
        var used = Set<String>()
        for target in PlatformMinimumsTests.sdkTargets {
            for file in try PlatformMinimumsTests.sources(of: target) {
                used.formUnion(try Self.categoriesUsed(in: String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)))
            }
        }
        let entries = try #require(Self.manifest()["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var declared = Set<String>()
        for entry in entries {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            let reasons = entry["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
            #expect(!reasons.isEmpty, "\(category) gives no reason")
            declared.insert(category)
        }
        #expect(declared == used, "declared \(declared.sorted()), used \(used.sorted())")
    }

    @Test func theSDKTargetShipsTheManifest() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let caucus = try #require(manifest.components(separatedBy: "            name: \"Caucus\",\n").dropFirst().first?
            .components(separatedBy: "\n        ),").first)
        #expect(caucus.contains(#"resources: [.process("PrivacyInfo.xcprivacy")]"#), "\(caucus)")
    }

    /// The check itself: each category is found in code, none in a comment.
    @Test func theCategoriesAreFoundInCodeOnly() throws {
        #expect(try Self.categoriesUsed(in: "let t = NIODeadline.now()") == ["NSPrivacyAccessedAPICategorySystemBootTime"])
        #expect(try Self.categoriesUsed(in: "UserDefaults.standard.set(1, forKey: \"k\")") == ["NSPrivacyAccessedAPICategoryUserDefaults"])
        #expect(try Self.categoriesUsed(in: "let a = try fm.attributesOfItem(atPath: p)") == ["NSPrivacyAccessedAPICategoryFileTimestamp"])
        #expect(try Self.categoriesUsed(in: "// NIODeadline.now() is monotonic").isEmpty)
        #expect(try Self.categoriesUsed(in: "let deadline: NIODeadline").isEmpty)
    }
}
