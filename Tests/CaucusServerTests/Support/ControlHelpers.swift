import CaucusProcessTestSupport
import CaucusAuth
import CaucusCore
import CaucusServer
import Foundation
import Hummingbird
import Logging
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP control API as the tests drive it: authenticated calls to one server.
struct ControlAPI: Sendable {
    let port: Int
    let key: String
    let secret: String

    init(_ server: TestServer) {
        port = server.port
        (key, secret) = HTTP.app(server)
    }

    init(port: Int, app: AppCredentials) {
        self.port = port
        key = app.key
        secret = app.secret
    }

    var auth: (String, String) { (key, secret) }

    /// Any request, authenticated as this app.
    func send(_ method: String, _ path: String, body: String? = nil) async throws -> HTTP.Reply {
        try await ControlAPI.raw(port: port, method, path, headers: ["Authorization": Self.basic(key, secret)], body: body)
    }

    /// `GET /v1/sessions`: the app's live sessions.
    func sessions() async throws -> [JSON] {
        let reply = try await send("GET", "/v1/sessions")
        guard reply.status == 200 else { throw TestFailure("GET /v1/sessions answered \(reply.status): \(reply.body)") }
        return reply.json.objects("sessions")
    }

    /// The id of the live session named `name` (exactly as the first joiner spelt it).
    func sessionID(named name: String) async throws -> Int {
        guard let id = try await sessions().first(where: { $0.string("name") == name })?.int("id") else {
            throw TestFailure("no live session named \(name)")
        }
        return id
    }

    /// Starts recording session `id`'s main location over HTTP (which must answer 200) and
    /// returns its timeline's path in `server`'s data folder, once the file is there.
    func recordMain(of id: Int, on server: TestServer) async throws -> String {
        let started = try await send("POST", "/v1/sessions/\(id)/recording/start", body: #"{"locations": [null]}"#)
        guard started.status == 200 else { throw TestFailure("recording/start answered \(started.status): \(started.body)") }
        let timeline = server.dataDirectory + "/recordings/\(id)/main/timeline.jsonl"
        try await within("the main session's timeline") {
            while !FileManager.default.fileExists(atPath: timeline) { try await Task.sleep(for: .milliseconds(20)) }
        }
        return timeline
    }

    /// `GET /v1/sessions/{id}`, which must answer 200.
    func session(_ id: Int) async throws -> JSON {
        let reply = try await send("GET", "/v1/sessions/\(id)")
        guard reply.status == 200 else { throw TestFailure("GET /v1/sessions/\(id) answered \(reply.status): \(reply.body)") }
        return reply.json
    }

    /// The session's `seq` as `GET /v1/sessions/{id}` reports it.
    func seq(_ id: Int) async throws -> Int {
        guard let seq = try await session(id).int("seq") else { throw TestFailure("no seq in the session view") }
        return seq
    }

    /// `POST /v1/sessions/{id}/operations` with `{"op": op, ...arguments}`.
    func operation(_ id: Int, _ op: String, _ arguments: JSON = [:]) async throws -> HTTP.Reply {
        var object = arguments
        object["op"] = op
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return try await send("POST", "/v1/sessions/\(id)/operations", body: body)
    }

    /// Runs an operation that must succeed; returns the `seq` of its last event.
    @discardableResult
    func perform(_ id: Int, _ op: String, _ arguments: JSON = [:]) async throws -> Int? {
        let reply = try await operation(id, op, arguments)
        guard reply.status == 200 else { throw TestFailure("\(op) over HTTP answered \(reply.status): \(reply.body)") }
        return reply.json.int("seq")
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// A request with exactly the headers given (for malformed credentials).
    static func raw(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> HTTP.Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return HTTP.Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: String(decoding: data, as: UTF8.self))
    }
}

extension HTTP.Reply {
    /// The `error` object of a refusal.
    var error: JSON { json.object("error") }
    var errorCode: Int? { error.int("code") }
}

/// Reading the JSON that `JSONSerialization` and `SendableJSON` make.
extension Dictionary where Key == String, Value == any Sendable {
    func object(_ key: String) -> JSON { self[key] as? JSON ?? [:] }
    func objects(_ key: String) -> [JSON] { self[key] as? [JSON] ?? [] }
    func int(_ key: String) -> Int? { self[key] as? Int }
    func ints(_ key: String) -> [Int]? { self[key] as? [Int] }
    func string(_ key: String) -> String? { self[key] as? String }
    func bool(_ key: String) -> Bool? { self[key] as? Bool }

    /// An event frame's `event` object.
    var event: JSON { object("event") }
    /// A `statusChanged` event's (or a view's) breakout status.
    var breakoutStatus: String? { object("breakout").object("phase").string("status") }
}

extension TestClient {
    /// The next `statusChanged` event that reports `status`.
    func statusChanged(to status: String) async throws -> JSON {
        try await within("statusChanged to \(status)") {
            try await self.event("statusChanged") { $0.event.breakoutStatus == status }
        }
    }

    /// Events received so far that nobody has taken, after a round trip so none is in flight.
    func settledEvents() async throws -> [JSON] {
        try await request("ping")
        return keptEvents()
    }
}

/// A real server with several apps, for what one app must not see of another.
final class MultiAppServer: Sendable {
    let running: RunningServer

    static func start(appKeys: [String]) async throws -> MultiAppServer {
        let apps = appKeys.map { AppCredentials(key: $0, secret: "\($0)-secret-\(UUID().uuidString)") }
        return MultiAppServer(running: try await RunningServer.start(apps: apps))
    }

    private init(running: RunningServer) { self.running = running }

    var port: Int { running.port }
    var apps: [AppCredentials] { running.apps }

    func joined(_ userName: String, session: String, app: AppCredentials, role: RoleClaim = .participant) async throws -> TestClient {
        let client = try await TestClient.connect(url: running.webSocketURL)
        try await client.join(session: session, userName: userName, token: try running.token(session: session, role: role, app: app))
        return client
    }

    func stop() async { await running.stop() }
}

/// The OpenAPI document's paths and methods, and the python validator when it is installed.
enum OpenAPICheck {
    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// "GET /v1/sessions/{id}" for every operation of the document.
    static func operations(in document: [String: Any]) -> Set<String> {
        let paths = document["paths"] as? [String: Any] ?? [:]
        var result = Set<String>()
        for (path, item) in paths {
            for key in (item as? [String: Any] ?? [:]).keys where methods.contains(key) { result.insert("\(key.uppercased()) \(path)") }
        }
        return result
    }

    /// The routes `ControlRoutes.swift` registers, read from its source ("GET /v1/sessions/{id}").
    static func routesInSource() throws -> Set<String> {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/CaucusServer/Control/ControlRoutes.swift")
        let source = try String(contentsOf: file, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\b(router|v1)\.(get|post|put|delete|patch|head)\("([^"]*)""#)
        var routes = Set<String>()
        for match in pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
            let text = { (index: Int) in String(source[Range(match.range(at: index), in: source)!]) }
            var path = text(3).hasPrefix("/") ? text(3) : "/" + text(3)
            if text(1) == "v1" { path = "/v1" + path }
            let templated = path.split(separator: "/", omittingEmptySubsequences: false).map {
                $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
            }.joined(separator: "/")
            routes.insert("\(text(2).uppercased()) \(templated)")
        }
        return routes
    }

    static let pythonValidatorAvailable: Bool = {
        (try? pythonBlocking(["-c", "import openapi_spec_validator"], input: nil).status) == 0
    }()

    /// Runs `python3` with `arguments`, `input` on its standard input.
    static func python(_ arguments: [String], input: String?) async throws -> (status: Int32, output: String) {
        try await offThePool { try pythonBlocking(arguments, input: input) }
    }

    private static func pythonBlocking(_ arguments: [String], input: String?) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdin = Pipe()
        let output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = output
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
