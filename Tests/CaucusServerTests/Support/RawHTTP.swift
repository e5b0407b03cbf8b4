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

    /// Sends one request and reads the whole answer. The socket calls block, so they run on
    /// a thread of their own: blocking the few threads of the concurrency pool would stall
    /// the in-process server that has to answer.
    static func send(port: Int, _ method: String, _ target: String, body: String? = nil) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try blockingSend(port: port, method, target, body: body) }) }.start()
        }
    }

    private static func blockingSend(port: Int, _ method: String, _ target: String, body: String?) throws -> Reply {
        let socket = try LoopbackSocket.connect(port: port)
        defer { close(socket) }
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        try LoopbackSocket.write(Array(request.utf8), to: socket)
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
