import Foundation
import Testing

/// An app links the WebRTC transport (`CaucusMedia`) and none of the server's selective
/// forwarding (`CaucusSFU`): no chain of target dependencies in Package.swift leads from the
/// SDK's target `Caucus` to `CaucusSFU`, and none of the SDK's targets imports it (SwiftPM may
/// let a module import another that the build happens to hold, declared or not).
@Suite struct SDKWithoutSFUTests {
    /// Each target of the package and the targets of this package it depends on (products of
    /// other packages left out), read from `swift package dump-package`.
    static func targetGraph() async throws -> [String: [String]] {
        let manifest = try #require(try JSONSerialization.jsonObject(with: try await Typecheck.packageManifest()) as? [String: Any])
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        let names = Set(targets.compactMap { $0["name"] as? String })
        var graph: [String: [String]] = [:]
        for target in targets {
            let name = try #require(target["name"] as? String)
            graph[name] = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                guard let (dependencyName, _) = CodecFreeBuildTests.targetDependency(dependency) else { return nil }
                return names.contains(dependencyName) ? dependencyName : nil
            }
        }
        return graph
    }

    /// The shortest chain of dependencies from `start` to `goal`, both included; nil if none.
    static func path(in graph: [String: [String]], from start: String, to goal: String) -> [String]? {
        var cameFrom: [String: String] = [:]
        var seen: Set<String> = [start]
        var frontier = [start]
        while !frontier.isEmpty {
            var next: [String] = []
            for node in frontier {
                if node == goal {
                    var chain = [node]
                    while let previous = cameFrom[chain[0]] { chain.insert(previous, at: 0) }
                    return chain
                }
                for dependency in graph[node] ?? [] where seen.insert(dependency).inserted {
                    cameFrom[dependency] = node
                    next.append(dependency)
                }
            }
            frontier = next
        }
        return nil
    }

    @Test func theSDKHasNoDependencyPathToTheSFU() async throws {
        let graph = try await Self.targetGraph()
        #expect(graph["CaucusSFU"] != nil, "no target CaucusSFU in Package.swift")
        #expect(graph["Caucus"] != nil, "no target Caucus in Package.swift")
        let chain = Self.path(in: graph, from: "Caucus", to: "CaucusSFU")
        #expect(chain == nil, "Caucus links the SFU: \(chain?.joined(separator: " → ") ?? "")")
        // The transport is still the SDK's, and the server is the SFU's user.
        #expect(Self.path(in: graph, from: "Caucus", to: "CaucusMedia") != nil)
        #expect(Self.path(in: graph, from: "CaucusServer", to: "CaucusSFU") == ["CaucusServer", "CaucusSFU"])
    }

    @Test(arguments: PlatformMinimumsTests.sdkTargets)
    func noSDKTargetImportsTheSFU(_ target: String) throws {
        let rule = try Regex(#"^\s*(@\w+\s+)?((internal|public|package|private|fileprivate)\s+)?import\s+CaucusSFU\b"#)
        var found: [String] = []
        for file in try PlatformMinimumsTests.sources(of: target) {
            let text = try String(contentsOf: PlatformMinimumsTests.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.firstMatch(of: rule) != nil {
                found.append("\(file):\(number + 1): \(line)")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// The check itself: an indirect dependency is found, with its chain; none where there is none.
    @Test func thePathSearchFindsIndirectDependencies() {
        let graph = ["Caucus": ["CaucusCore", "CaucusMedia"], "CaucusMedia": ["CaucusSFU"], "CaucusCore": []]
        #expect(Self.path(in: graph, from: "Caucus", to: "CaucusSFU") == ["Caucus", "CaucusMedia", "CaucusSFU"])
        #expect(Self.path(in: ["Caucus": ["CaucusMedia"], "CaucusSFU": ["CaucusMedia"]], from: "Caucus", to: "CaucusSFU") == nil)
        let cycle = ["Caucus": ["A"], "A": ["Caucus"]]
        #expect(Self.path(in: cycle, from: "Caucus", to: "CaucusSFU") == nil)
    }
}
