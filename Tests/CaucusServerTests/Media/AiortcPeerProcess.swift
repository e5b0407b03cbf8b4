import Foundation

/// `Scripts/aiortc_media_peer.py` as a running process, spoken to in JSON lines. Reads happen
/// on a background thread, so a silent peer fails the test through `within` instead of
/// hanging it; `stop()` kills the process whatever it is doing.
final class AiortcPeerProcess: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/aiortc_media_peer.py")

    private let process: Process
    private let input: FileHandle
    private let lines: AsyncStream<String>

    init() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        input = stdin.fileHandleForWriting
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let output = stdout.fileHandleForReading
        try process.run()
        Thread.detachNewThread {
            var buffer: [UInt8] = []
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                buffer += chunk
                while let newline = buffer.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeFirst(newline + 1)
                }
            }
            continuation.finish()
        }
    }

    /// The next JSON line the peer prints.
    func next() async throws -> [String: String] {
        var iterator = lines.makeAsyncIterator()
        guard let line = await iterator.next() else { throw TestFailure("the aiortc peer exited (is aiortc installed?)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else {
            throw TestFailure("the aiortc peer printed \(line)")
        }
        return object
    }

    func send(_ object: [String: String]) throws {
        input.write(try JSONSerialization.data(withJSONObject: object) + Data("\n".utf8))
    }

    func send(line: String) { input.write(Data((line + "\n").utf8)) }

    func stop() {
        if process.isRunning { process.terminate() }
        try? input.close()
    }
}
