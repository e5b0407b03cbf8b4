import Foundation

/// A child process spoken to in lines: written to its standard input, read from its standard
/// output on a thread of its own, so a silent child fails a test through `within` instead of
/// blocking Swift's cooperative pool. `stop()` ends it whatever it is doing. The tests' Python
/// peers (aiortc, a headless Chromium page) run this way.
public final class LineProcess: Sendable {
    private let process: Process
    private let input: FileHandle
    private let lines: AsyncStream<String>

    /// Runs `arguments` through `/usr/bin/env` (so `python3` is found on the PATH); its standard
    /// error goes to `standardError` (dropped when nil).
    public init(_ arguments: [String], standardError: FileHandle? = nil) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = standardError ?? FileHandle.nullDevice
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

    /// The next line the child prints; nil once it has exited.
    public func nextLine() async -> String? {
        var iterator = lines.makeAsyncIterator()
        return await iterator.next()
    }

    public func send(line: String) { input.write(Data((line + "\n").utf8)) }

    public func stop() {
        if process.isRunning { process.terminate() }
        try? input.close()
    }
}
