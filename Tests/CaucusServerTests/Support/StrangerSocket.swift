import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection that sends what a test says (nothing, half a request) and then
/// only listens: whether, and with what bytes, the server closes it.
final class StrangerSocket: Sendable {
    let socket: Int32

    init(port: Int, sending bytes: String = "") throws {
        socket = try LoopbackSocket.connect(port: port)
        if !bytes.isEmpty { try LoopbackSocket.write(Array(bytes.utf8), to: socket) }
    }

    deinit { close(socket) }

    func send(_ bytes: String) throws { try LoopbackSocket.write(Array(bytes.utf8), to: socket) }

    /// What the server sent before it closed the connection, or nil if it was still open
    /// after `seconds`. Blocks a thread of its own, not the concurrency pool the server runs on.
    func closed(within seconds: Int) async -> String? {
        let socket = socket
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Self.readUntilClosed(socket, seconds: seconds)) }.start()
        }
    }

    private static func readUntilClosed(_ socket: Int32, seconds: Int) -> String? {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 || errno == ECONNRESET {
                return String(decoding: received, as: UTF8.self)
            } else {
                return nil
            }
        }
    }
}
