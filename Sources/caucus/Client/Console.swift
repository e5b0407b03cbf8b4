import Foundation
import NIOConcurrencyHelpers

/// The client's terminal: lines out, written whole and at once (standard output is often a
/// pipe, where buffered output would arrive late), and lines in, read on a thread of their own
/// so that a blocked read never holds up the events.
final class Console: Sendable {
    /// What the client reacts to: a line typed, the end of the input, or the end of the session.
    enum Input: Sendable {
        case line(String)
        case endOfInput
        case sessionOver
    }

    private let lock = NIOLock()
    let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation

    init() {
        (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    }

    /// Writes one or more lines.
    func print(_ lines: String...) { print(lines) }

    func print(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        lock.withLock { FileHandle.standardOutput.write(data) }
    }

    /// Starts reading standard input, a line at a time, until it ends.
    func startReading() {
        let continuation = continuation
        let reader = Thread {
            while let line = readLine() { continuation.yield(.line(line)) }
            continuation.yield(.endOfInput)
        }
        reader.start()
    }

    /// Ends the input loop: the session is over, nothing typed can be carried out.
    func sessionIsOver() { continuation.yield(.sessionOver) }
}
