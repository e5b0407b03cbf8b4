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
}
