import CaucusCore
import CaucusProtocol
import Foundation
import Testing

/// `docs/protocol.md` says what the wire carries: every operation and every event type has its
/// heading, every example request decodes as the server decodes requests, and every example
/// frame the server sends decodes and re-encodes to exactly what the document shows.
@Suite struct ProtocolDocumentationTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")

    @Test func everyOperationHasAHeadingInTheRequestsSection() throws {
        let document = try ProtocolDocument.load(from: Self.path)
        let headings = try #require(document.headings(inSection: "Requests"), "docs/protocol.md has no \"## Requests\" section")
        let documented = Set(headings)
        let operations = Set(Operation.allCases.map(\.rawValue))
        #expect(headings.count == documented.count, "an operation is documented twice: \(headings)")
        #expect(operations.subtracting(documented).isEmpty, "undocumented operations: \(operations.subtracting(documented).sorted())")
        #expect(documented.subtracting(operations).isEmpty, "documented but not operations: \(documented.subtracting(operations).sorted())")
    }

    @Test func everyEventTypeHasAHeadingInTheEventsSection() throws {
        let document = try ProtocolDocument.load(from: Self.path)
        let headings = try #require(document.headings(inSection: "Events"), "docs/protocol.md has no \"## Events\" section")
        let documented = Set(headings)
        let kinds = Set(Event.Kind.allCases.map(\.rawValue))
        #expect(headings.count == documented.count, "an event type is documented twice: \(headings)")
        #expect(kinds.subtracting(documented).isEmpty, "undocumented event types: \(kinds.subtracting(documented).sorted())")
        #expect(documented.subtracting(kinds).isEmpty, "documented but not event types: \(documented.subtracting(kinds).sorted())")
    }

    @Test func everyJSONExampleIsOneJSONObject() throws {
        let document = try ProtocolDocument.load(from: Self.path)
        #expect(document.jsonBlocks.count >= 50)
        for example in document.examples {
            #expect(example.object != nil, "not one JSON object, in \(example.place):\n\(example.text)")
        }
    }

    @Test func everyExampleRequestDecodes() throws {
        let document = try ProtocolDocument.load(from: Self.path)
        var exemplified = Set<String>()
        for example in document.examples where example.object?["op"] != nil {
            do throws(FrameError) {
                _ = try ClientFrame.decode(Data(example.text.utf8))
                if let op = example.object?["op"] as? String { exemplified.insert(op) }
            } catch {
                Issue.record("example request in \(example.place) does not decode: \(error.error)\n\(example.text)")
            }
        }
        let operations = Set(Operation.allCases.map(\.rawValue))
        #expect(operations.subtracting(exemplified).isEmpty, "operations without an example request: \(operations.subtracting(exemplified).sorted())")
    }

    @Test func everyExampleServerFrameDecodesAndReencodesExactly() throws {
        let document = try ProtocolDocument.load(from: Self.path)
        var exemplified = Set<String>()
        var frames = 0
        for example in document.examples {
            guard let object = example.object, object["op"] == nil, object["re"] != nil || object["seq"] != nil || object["media"] != nil
            else { continue }
            frames += 1
            let frame: ServerFrame
            do {
                frame = try JSONDecoder().decode(ServerFrame.self, from: Data(example.text.utf8))
            } catch {
                Issue.record("example server frame in \(example.place) does not decode: \(error)\n\(example.text)")
                continue
            }
            if case .event(let event) = frame { exemplified.insert(event.event.kind.rawValue) }
            if object["media"] != nil, case .mediaSlots = frame {} else if object["media"] != nil {
                Issue.record("the slot map example in \(example.place) decodes as \(frame)")
            }
            // The server's own encoding of what was decoded must be the example itself: no field
            // misspelled, missing or extra.
            let shown = try Self.canonical(object)
            let encoded = try Self.canonical(try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(frame)) as? [String: Any]))
            #expect(shown == encoded, "example in \(example.place) is not what the server encodes:\nshown:   \(shown)\nencoded: \(encoded)")
        }
        #expect(frames >= 40)
        let kinds = Set(Event.Kind.allCases.map(\.rawValue))
        #expect(kinds.subtracting(exemplified).isEmpty, "event types without an example frame: \(kinds.subtracting(exemplified).sorted())")
    }

    private static func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}

/// The parts of a Markdown document these tests read: `## ` sections with their `### ` headings,
/// fenced code blocks, and in `text` blocks the transcript lines `Who → {…}` / `Who ← {…}`.
struct ProtocolDocument {
    struct Section {
        let title: String
        var headings: [String] = []
    }

    struct CodeBlock {
        let language: String
        let text: String
        let section: String
        let line: Int
    }

    struct Example {
        let text: String
        let place: String

        var object: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }
    }

    var sections: [Section] = []
    var blocks: [CodeBlock] = []

    static func load(from url: URL) throws -> ProtocolDocument {
        ProtocolDocument(parsing: try String(contentsOf: url, encoding: .utf8))
    }

    init(parsing text: String) {
        var fence: (language: String, line: Int, lines: [Substring])?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") {
                if let open = fence {
                    blocks.append(
                        CodeBlock(
                            language: open.language, text: open.lines.joined(separator: "\n"),
                            section: sections.last?.title ?? "", line: open.line))
                    fence = nil
                } else {
                    fence = (String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), index + 1, [])
                }
                continue
            }
            if fence != nil {
                fence?.lines.append(line)
            } else if line.hasPrefix("## ") {
                sections.append(Section(title: String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)))
            } else if let match = line.wholeMatch(of: /### `([A-Za-z]+)`/), !sections.isEmpty {
                sections[sections.count - 1].headings.append(String(match.output.1))
            }
        }
    }

    /// The `` ### `name` `` headings of the `## title` section, in order.
    func headings(inSection title: String) -> [String]? {
        sections.first { $0.title == title }?.headings
    }

    var jsonBlocks: [CodeBlock] { blocks.filter { $0.language == "json" } }

    /// Every ```json block, and every frame line of a ```text transcript.
    var examples: [Example] {
        var examples = jsonBlocks.map { Example(text: $0.text, place: "\"\($0.section)\", line \($0.line)") }
        for block in blocks where block.language == "text" {
            for (offset, line) in block.text.split(separator: "\n").enumerated() {
                guard let match = line.wholeMatch(of: /\S+\s+[→←]\s+(\{.*\})/) else { continue }
                examples.append(Example(text: String(match.output.1), place: "\"\(block.section)\", line \(block.line + offset + 1)"))
            }
        }
        return examples
    }
}
