import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A bare WebSocket client on a plain socket with a tiny receive buffer, for a client that
/// stops reading: the server must cut it off without its session slowing down.
final class RawWebSocket {
    private let socket: Int32

    init(port: Int, receiveBuffer: Int32 = 4096) throws {
        socket = try LoopbackSocket.connect(port: port, receiveBuffer: receiveBuffer)
        let request = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try write(Array(request.utf8))
        // Read the 101 response headers, byte by byte, and nothing more.
        var headers: [UInt8] = []
        var byte: UInt8 = 0
        while !headers.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(socket, &byte, 1, 0) == 1 else { throw TestFailure("no upgrade response") }
            headers.append(byte)
        }
        guard String(decoding: headers, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw TestFailure("upgrade refused") }
    }

    deinit { close(socket) }

    /// Sends one masked text frame.
    func sendText(_ text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    private func write(_ bytes: [UInt8]) throws {
        try LoopbackSocket.write(bytes, to: socket)
    }
}
