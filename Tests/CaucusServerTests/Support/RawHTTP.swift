import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 over a plain socket: the request target goes out exactly as written (URL
/// libraries normalise `..` away) and redirects are reported, not followed.
enum RawHTTP {
    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: String

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    static func send(port: Int, _ method: String, _ target: String, body: String? = nil) throws -> Reply {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestFailure("socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect() failed") }
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw TestFailure("send() failed") }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return try parse(String(decoding: received, as: UTF8.self))
    }

    private static func parse(_ text: String) throws -> Reply {
        guard let end = text.range(of: "\r\n\r\n") else { throw TestFailure("no HTTP response: \(text)") }
        let lines = text[..<end.lowerBound].components(separatedBy: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw TestFailure("bad status line: \(lines.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: headers, body: String(text[end.upperBound...]))
    }
}
