import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A bare WebSocket client on a plain socket: for a client that stops reading (the server
/// must cut it off without its session slowing down), and for frames no well-behaved
/// library sends (fragments, bad UTF-8, reserved bits, unanswered pings).
final class RawWebSocket {
    private let socket: Int32

    /// A frame as the server sent it.
    struct Frame: Equatable {
        let fin: Bool
        let opcode: UInt8
        let payload: [UInt8]

        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code.
        var closeCode: Int? { opcode == 8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
    }

    /// `readTimeout`: seconds a read may wait (longer where the server waits out a store).
    init(port: Int, receiveBuffer: Int32 = 4096, path: String = "/ws", readTimeout: Int = 10) throws {
        socket = try LoopbackSocket.connect(port: port, receiveBuffer: receiveBuffer)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try write(Array(request.utf8))
        // Read the 101 response headers, byte by byte, and nothing more.
        var headers: [UInt8] = []
        var byte: UInt8 = 0
        while !headers.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(socket, &byte, 1, 0) == 1 else { throw TestFailure("no upgrade response") }
            headers.append(byte)
        }
        let status = String(decoding: headers, as: UTF8.self)
        guard status.hasPrefix("HTTP/1.1 101") else { throw TestFailure("upgrade refused: \(status.prefix(while: { $0 != "\r" }))") }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(socket) }

    /// Sends one masked text frame.
    func sendText(_ text: String) throws { try send(opcode: 1, Array(text.utf8)) }

    /// Sends one masked frame, as given (`reserved` sets RSV1).
    func send(opcode: UInt8, fin: Bool = true, reserved: Bool = false, _ payload: [UInt8]) throws {
        try write(Self.frame(opcode: opcode, fin: fin, reserved: reserved, payload))
    }

    /// Sends several frames in one write, so the server reads them together.
    func sendTogether(_ frames: [[UInt8]]) throws { try write(frames.flatMap { $0 }) }

    /// The bytes of one masked client frame.
    static func frame(opcode: UInt8, fin: Bool = true, reserved: Bool = false, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | (reserved ? 0x40 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// The next frame from the server, or nil once the socket is closed. Blocks a thread
    /// outside Swift's cooperative pool, so a test waiting here never starves the server.
    func nextFrame() async throws -> Frame? {
        let socket = socket
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try Self.readFrame(socket) }) }
        }
    }

    private static func readFrame(_ socket: Int32) throws -> Frame? {
        guard let head = try read(2, from: socket) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let bytes = try read(2, from: socket) else { return nil }
            length = bytes.reduce(0) { $0 << 8 | Int($1) }
        } else if length == 127 {
            guard let bytes = try read(8, from: socket) else { return nil }
            length = bytes.reduce(0) { $0 << 8 | Int($1) }
        }
        guard head[1] & 0x80 == 0 else { throw TestFailure("the server masked a frame") }
        guard let payload = length == 0 ? [] : try read(length, from: socket) else { return nil }
        return Frame(fin: head[0] & 0x80 != 0, opcode: head[0] & 0x0F, payload: payload)
    }

    /// Exactly `count` bytes, or nil if the socket closes first.
    private static func read(_ count: Int, from socket: Int32) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes[filled...].withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if got == 0 || (got < 0 && errno == ECONNRESET) { return nil }
            guard got > 0 else { throw TestFailure("recv() failed or timed out (errno \(errno))") }
            filled += got
        }
        return bytes
    }

    /// Reads frames until a close frame arrives, and returns its code (nil: the socket closed without one).
    func closeCode() async throws -> Int? {
        while let frame = try await nextFrame() {
            if frame.opcode == 8 { return frame.closeCode }
        }
        return nil
    }

    private func write(_ bytes: [UInt8]) throws {
        try LoopbackSocket.write(bytes, to: socket)
    }
}
