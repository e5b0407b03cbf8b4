import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP requests to a test server.
enum HTTP {
    struct Reply: Sendable {
        let status: Int
        let body: String
        var json: [String: any Sendable] {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return [:] }
            return object.mapValues { SendableJSON.wrap($0) }
        }
    }

    static func get(_ server: TestServer, _ path: String, auth: (String, String)? = nil) async throws -> Reply {
        try await send(server, "GET", path, auth: auth)
    }

    static func send(_ server: TestServer, _ method: String, _ path: String, auth: (String, String)? = nil, body: String? = nil) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        request.httpMethod = method
        if let (user, password) = auth {
            request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: String(decoding: data, as: UTF8.self))
    }

    static func app(_ server: TestServer) -> (String, String) { (server.app.key, server.app.secret) }
}
