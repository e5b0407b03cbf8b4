import CaucusCore
import Foundation
import Testing

/// The documents say what the code does.
@Suite struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func errorsDocumentListsEveryCodeWithItsName() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        var documented: [Int: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let code = Int(cells[0]) else { continue }
            #expect(documented[code] == nil, "code \(code) documented twice")
            documented[code] = cells[1]
        }
        let actual = Dictionary(uniqueKeysWithValues: CaucusError.Code.known.map { ($0.rawValue, $0.name) })
        #expect(documented == actual)
    }

    @Test func architectureDocumentNamesOnlyTestsThatExist() throws {
        let architecture = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let testsFolder = Self.root.appendingPathComponent("Tests")
        var sources = ""
        let files = FileManager.default.enumerator(at: testsFolder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            if file.pathExtension == "swift" { sources += try String(contentsOf: file, encoding: .utf8) }
        }
        // The rule tables: rows whose cells name `Suite.test`.
        let rows = architecture.split(separator: "\n").filter { $0.hasPrefix("| ") }.joined(separator: "\n")
        let names = rows.matches(of: /`([A-Za-z]+)\.([A-Za-z]+)`/).map { (String($0.output.1), String($0.output.2)) }
        #expect(names.count >= 60, "the rule table maps the brief's rules to tests")
        for (suite, test) in names {
            #expect(sources.contains("struct \(suite)"), "no suite \(suite)")
            #expect(sources.contains("func \(test)("), "no test \(test) (named in docs/architecture.md)")
        }
    }

    /// Every relative link in README.md and docs/ leads to a file that exists and, with a
    /// `#fragment`, to a heading that file has: pages move, and their links must follow.
    @Test func everyRelativeLinkLeadsToAFileAndAHeadingThatExist() throws {
        let docs = Self.root.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil).filter { $0.pathExtension == "md" }
        var links = 0
        var anchorsByPage: [URL: Set<String>] = [:]
        for document in [Self.root.appendingPathComponent("README.md")] + pages {
            let text = Self.outsideCodeBlocks(try String(contentsOf: document, encoding: .utf8))
            for match in text.matches(of: /\]\(([^)\s]+)\)/) {
                let target = String(match.output.1)
                guard !target.contains(":") else { continue }  // https:, mailto:
                links += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file = parts[0].isEmpty ? document : document.deletingLastPathComponent().appendingPathComponent(String(parts[0])).standardizedFileURL
                let name = document.lastPathComponent
                guard FileManager.default.fileExists(atPath: file.path) else {
                    Issue.record("\(name) links to \(target): no such file")
                    continue
                }
                if parts.count == 2, file.pathExtension == "md" {
                    let anchors = try anchorsByPage[file] ?? Self.anchors(of: String(contentsOf: file, encoding: .utf8))
                    anchorsByPage[file] = anchors
                    if !anchors.contains(String(parts[1])) {
                        Issue.record("\(name) links to \(target): \(file.lastPathComponent) has no such heading")
                    }
                }
            }
        }
        #expect(links >= 100, "the documents link to each other")
    }

    /// The text outside fenced code blocks (indented ones too, as in a list).
    static func outsideCodeBlocks(_ text: String) -> String {
        var inside = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                inside.toggle()
                return false
            }
            return !inside
        }.joined(separator: "\n")
    }

    /// The anchors a page's headings get where it is read: lowercased, without punctuation,
    /// spaces as hyphens; a heading met again gets `-1`, `-2`…
    static func anchors(of text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in outsideCodeBlocks(text).split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }
            guard title.first == " " else { continue }
            let kept = title.dropFirst().trimmingCharacters(in: .whitespaces).lowercased().unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
            }
            let slug = String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
            let repeats = seen[slug, default: 0]
            seen[slug] = repeats + 1
            anchors.insert(repeats == 0 ? slug : "\(slug)-\(repeats)")
        }
        return anchors
    }
}
