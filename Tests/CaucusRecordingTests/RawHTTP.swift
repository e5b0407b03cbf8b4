import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 over a plain socket to 127.0.0.1, the request target sent exactly as given: no
/// client library normalises `..` or decodes `%2F` before the server sees them.
enum RawHTTP {
    struct Reply: Sendable {
        var status: Int
        /// Header names in lower case.
        var headers: [String: String]
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var errorCode: Int? { (json["error"] as? [String: Any])?["code"] as? Int }
    }

    static func send(port: Int, _ method: String, _ target: String, headers: [String: String] = [:]) async throws -> Reply {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        return try await offThePool { try exchange(port: port, bytes) }
    }

    static func basic(_ key: String, _ secret: String) -> String {
        "Basic " + Data("\(key):\(secret)".utf8).base64EncodedString()
    }

    /// Sends the request and reads only its first `count` bytes, leaving the rest unread
    /// (the server's writes wait on the socket) until the returned descriptor is closed.
    static func startReading(port: Int, _ target: String, headers: [String: String], count: Int) async throws -> (socket: Int32, bytes: [UInt8]) {
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        return try await offThePool {
            let socket = try connected(port: port)
            try send(bytes, on: socket)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: count)
            while received.count < count {
                let got = buffer.withUnsafeMutableBytes { read(socket, $0.baseAddress, count - received.count) }
                guard got > 0 else { throw TestFailure("read: \(errno)") }
                received += buffer[0..<got]
            }
            return (socket, received)
        }
    }

    private static func send(_ bytes: [UInt8], on socket: Int32) throws {
        guard bytes.withUnsafeBytes({ write(socket, $0.baseAddress, $0.count) }) == bytes.count else { throw TestFailure("write: \(errno)") }
    }

    private static func connected(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw TestFailure("connect to 127.0.0.1:\(port): \(errno)")
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    private static func exchange(port: Int, _ request: [UInt8]) throws -> Reply {
        let socket = try connected(port: port)
        defer { close(socket) }
        try send(request, on: socket)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw TestFailure("read: \(errno)") }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        return try parse(received)
    }

    private static func parse(_ bytes: [UInt8]) throws -> Reply {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw TestFailure("no header end in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestFailure("bad status line \(lines.first ?? "")") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try unchunk(body) }
        return Reply(status: status, headers: headers, body: body)
    }

    private static func unchunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var position = 0
        while true {
            guard let lineEnd = (position..<max(position, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                let size = Int(String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16)
            else { throw TestFailure("bad chunk") }
            if size == 0 { return body }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { throw TestFailure("short chunk") }
            body += bytes[start..<start + size]
            position = start + size + 2
        }
    }
}
