import CaucusProcessTestSupport
import Foundation
import Testing

/// docs/webrtc-clients.md's worked example (issue 26, item 9): `docs/examples/aiortc_client.py`,
/// run as the document says against a real server, joins, connects its one max-bundle peer,
/// gets the slot map with the answer and publishes.
@Suite(.serialized) struct WebRTCClientExampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func theDocumentedAiortcClientConnectsAndPublishes() async throws {
        let server = try await TestServer.start()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.repository.appendingPathComponent("docs/examples/aiortc_client.py").path, server.webSocketURL, "Class",
            "Ada", try server.token(session: "Class", role: .host), "1",
        ]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let (output, errors) = try await offThePool {
            let output = stdout.fileHandleForReading.readDataToEndOfFile()
            let errors = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
        }
        #expect(process.terminationStatus == 0, "\(errors)")
        let lines = output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let keys = lines.compactMap(\.keys.first)
        #expect(keys.first == "joined", "\(output)")
        #expect(keys.firstIndex(of: "slots") ?? .max < keys.firstIndex(of: "state") ?? .max, "the slot map comes with the answer: \(output)")
        #expect(lines.contains { $0["state"] as? String == "connected" }, "\(output)")
        #expect(keys.contains("published"), "\(output)")
        let slots = lines.first { $0["slots"] != nil }?["slots"] as? [[String: Any]] ?? []
        #expect(slots.map { $0["kind"] as? String } == ["audio", "video"], "\(slots)")
        await server.stop()
    }
}
