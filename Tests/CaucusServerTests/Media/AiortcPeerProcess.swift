import CaucusTestSupport
import Foundation

/// `Scripts/aiortc_media_peer.py` as a running process, spoken to in JSON lines (a
/// `LineProcess`): a silent peer fails the test through `within` instead of hanging it;
/// `stop()` kills the process whatever it is doing.
final class AiortcPeerProcess: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/aiortc_media_peer.py")

    private let process: LineProcess

    init() throws { process = try LineProcess(["python3", Self.script.path]) }

    /// The next JSON line the peer prints.
    func next() async throws -> [String: String] {
        guard let line = await process.nextLine() else { throw TestFailure("the aiortc peer exited (is aiortc installed?)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else {
            throw TestFailure("the aiortc peer printed \(line)")
        }
        return object
    }

    func send(_ object: [String: String]) throws {
        process.send(line: String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    func send(line: String) { process.send(line: line) }

    func stop() { process.stop() }
}
