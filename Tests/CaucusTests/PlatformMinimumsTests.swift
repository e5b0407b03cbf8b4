import Foundation
import Testing

/// The package declares macOS 13 and iOS 16 (platforms are package-wide), and every target's
/// sources stay within them: the SDK's, so that apps run where their users are, and the
/// server's and the tests', so that `swift run caucus serve` and `swift test` build on a Mac
/// of that age.
///
/// This stands in for an Apple build, which this Linux machine cannot run (it has no macOS or
/// iOS SDK, and Linux has no availability checks): it reads the sources of every target and
/// fails on the APIs above those minimums that such code reaches for, and it checks that
/// Package.swift still says macOS 13 and iOS 16. It cannot see every such API (only a real
/// build for the minimums can); it catches the ones that already crept in once, and their
/// neighbours.
@Suite struct PlatformMinimumsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The library an app imports, and every target it is built from.
    static let sdkTargets = ["Caucus", "CaucusProtocol", "CaucusCore", "CaucusJSON", "CaucusJSONSyntax", "CaucusMedia"]

    /// Every Swift target of the package, as `Sources/<name>` or `Tests/<name>`: each folder
    /// there that holds Swift files.
    static func allTargets() throws -> [String] {
        var targets: [String] = []
        for parent in ["Sources", "Tests"] {
            let folder = root.appendingPathComponent(parent)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                let files = FileManager.default.enumerator(atPath: folder.appendingPathComponent(name).path)?
                    .compactMap { $0 as? String } ?? []
                if files.contains(where: { $0.hasSuffix(".swift") }) { targets.append("\(parent)/\(name)") }
            }
        }
        return targets
    }

    /// Patterns (regular expressions) that name an API above macOS 13 / iOS 16, and why.
    static let denied: [(pattern: String, why: String)] = [
        (#"import\s+Synchronization\b"#, "the Synchronization module needs macOS 15 / iOS 18: use NIOConcurrencyHelpers"),
        (#"\bMutex\s*[<(]"#, "Mutex needs macOS 15 / iOS 18: use NIOLockedValueBox"),
        (#"\bAtomic\s*[<(]"#, "Atomic needs macOS 15 / iOS 18: use NIOLockedValueBox, or ManagedAtomic (swift-atomics)"),
        (#"\bwith(Throwing)?DiscardingTaskGroup\b"#, "discarding task groups need macOS 14 / iOS 17"),
        (#"import\s+Observation\b"#, "Observation needs macOS 14 / iOS 17"),
        (#"@Observable\b"#, "Observation needs macOS 14 / iOS 17"),
        (#"\bU?Int128\b"#, "128-bit integers need macOS 15 / iOS 18"),
        (#"\b(InlineArray|MutableSpan|RawSpan|UTF8Span|Span)\b"#, "InlineArray and spans need macOS 26 / iOS 26"),
        (#"\bTask\s*\(\s*name:"#, "named tasks need macOS 26 / iOS 26"),
        (#"\bTask\.immediate\b"#, "immediate tasks need macOS 26 / iOS 26"),
        (#"@available\s*\([^)]*\b(macOS\s+(1[4-9]|[2-9]\d)|iOS\s+(1[7-9]|[2-9]\d))"#,
         "an availability above the SDK's minimums"),
    ]

    /// Every Swift file of `target`, by path relative to the package.
    static func sources(of target: String) throws -> [String] {
        let path = target.contains("/") ? target : "Sources/\(target)"
        let folder = root.appendingPathComponent(path)
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else {
            throw SourcesMissing(target: target)
        }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "\(path)/\($0)" }.sorted()
    }

    struct SourcesMissing: Error {
        let target: String
    }

    /// The lines of `text` that match a denied pattern, comments left out (prose may name
    /// what the code must not use).
    static func violations(in text: String, file: String) throws -> [String] {
        let rules = try denied.map { (try Regex($0.pattern).wordBoundaryKind(.simple), $0.why) }
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            for (rule, why) in rules where code.firstMatch(of: rule) != nil {
                found.append("\(file):\(number + 1): \(why): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    @Test func everyTargetsSourcesUseNoAPIAboveTheMinimums() throws {
        let targets = try Self.allTargets()
        // The SDK's targets, the server's, the command's and the tests' are all read.
        #expect(Set(Self.sdkTargets.map { "Sources/\($0)" } + ["Sources/CaucusServer", "Sources/caucus", "Tests/CaucusServerTests"])
            .isSubset(of: targets), "\(targets)")
        var found: [String] = []
        // This file names the denied APIs in its own checks.
        for file in try targets.flatMap(Self.sources(of:)) where !file.hasSuffix("/PlatformMinimumsTests.swift") {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            found += try Self.violations(in: text, file: file)
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func packageSwiftStillSaysMacOS13AndIOS16() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let platforms = manifest.split(separator: "\n").filter { $0.contains("platforms:") && !$0.contains("when(") }
        #expect(platforms.map { $0.trimmingCharacters(in: .whitespaces) } == ["platforms: [.macOS(.v13), .iOS(.v16)],"])
    }

    /// The SDK builds where an app runs: none of its targets imports a Linux-only module (the
    /// C library's `Glibc` or `Musl`) or the Linux codec targets (libopus, libvpx), and the
    /// `Caucus` target's dependencies in Package.swift do not name them.
    @Test(arguments: sdkTargets)
    func theSDKImportsNothingLinuxOnly(_ target: String) throws {
        let rule = try Regex(#"^\s*(@\w+\s+)?((internal|public|package|private|fileprivate)\s+)?import\s+(Glibc|Musl|CaucusCodecs|COpus|CVPX)\b"#)
        var found: [String] = []
        for file in try Self.sources(of: target) {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.firstMatch(of: rule) != nil {
                found.append("\(file):\(number + 1): \(line)")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let caucus = try #require(manifest.components(separatedBy: "            name: \"Caucus\",\n").dropFirst().first?
            .components(separatedBy: "\n        ),").first)
        #expect(!caucus.contains("CaucusCodecs") && !caucus.contains("COpus") && !caucus.contains("CVPX"), "\(caucus)")
    }

    /// The check itself: each denied pattern is caught in code, and none in a comment.
    @Test func theDenylistCatchesWhatItNames() throws {
        let offending = [
            "import Synchronization", "let lock = Mutex(0)", "let box: Mutex<Int>", "let count = Atomic<Int>(0)",
            "await withDiscardingTaskGroup { _ in }", "import Observation", "@Observable final class Model {}",
            "let big: Int128 = 0", "let bytes: Span<UInt8>", "Task(name: \"x\") {}", "Task.immediate {}",
            "@available(macOS 15, iOS 18, *)",
        ]
        for line in offending {
            #expect(try !Self.violations(in: line, file: "x").isEmpty, "not caught: \(line)")
        }
        let fine = [
            "import NIOConcurrencyHelpers", "let lock = NIOLockedValueBox(0)", "let count = ManagedAtomic<Int>(0)",
            "// Mutex<Int> would need macOS 15", "await withTaskGroup(of: Void.self) { _ in }", "let url = \"ws://x\" // Mutex(",
            "@available(macOS 13, iOS 16, *)",
        ]
        for line in fine {
            #expect(try Self.violations(in: line, file: "x").isEmpty, "caught, but fine: \(line)")
        }
    }
}
