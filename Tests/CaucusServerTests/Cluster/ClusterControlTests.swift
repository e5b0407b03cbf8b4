import CaucusAuth
import CaucusCore
import Foundation
import Testing

/// The control API on any node serves every session of the app: it lists them all, and sends
/// a request for a session another node serves there (307, which repeats method and body).
@Suite(.serialized) struct ClusterControlTests {
    static let otherApp = AppCredentials(key: "other-app", secret: "other-secret-0123456789")

    @Test func anyNodeListsEverySessionAndRedirectsToTheNodeServingOne() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 10, apps: [ServerProcess.app, Self.otherApp])
        let (first, second) = (cluster.nodes[0], cluster.nodes[1])
        let host = try await TestClient.connect(url: first.webSocketURL)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host))
        // A join through the other node is sent to the first: one session, on one node.
        let ann = try await TestClient.connect(url: second.webSocketURL)
        let reply = try await ann.reply(to: try await ann.send("join", ["session": "Class", "userName": "Ann", "token": try cluster.token(session: "Class")]))
        let error = try #require(reply["error"] as? JSON)
        #expect(error["code"] as? Int == 1015)
        #expect(error["name"] as? String == "otherNode")
        #expect(error["url"] as? String == first.webSocketURL)

        let listed = try await Curl.run(["-u", "\(ServerProcess.app.key):\(ServerProcess.app.secret)", "http://127.0.0.1:\(second.port)/v1/sessions"])
        #expect(listed.status == 200)
        let sessions = try #require(listed.json["sessions"] as? [JSON])
        #expect(sessions.count == 1)
        let id = try #require(sessions.first?["id"] as? Int)
        #expect(sessions.first?["node"] as? String == "http://127.0.0.1:\(first.port)")
        #expect(sessions.first?["name"] as? String == "Class")
        let here = try await Curl.run(["-u", "\(ServerProcess.app.key):\(ServerProcess.app.secret)", "http://127.0.0.1:\(first.port)/v1/sessions"])
        #expect((here.json["sessions"] as? [JSON])?.first?["users"] as? Int == 1, "the serving node lists it in full")

        let path = "/v1/sessions/\(id)"
        let redirected = try await Curl.run(["-u", "\(ServerProcess.app.key):\(ServerProcess.app.secret)", "http://127.0.0.1:\(second.port)\(path)"])
        #expect(redirected.status == 307)
        #expect(redirected.location == "http://127.0.0.1:\(first.port)\(path)")
        // Another app asking for the same id learns nothing: not that it is live, nor where.
        let stranger = try await Curl.run(["-u", "\(Self.otherApp.key):\(Self.otherApp.secret)", "http://127.0.0.1:\(second.port)\(path)"])
        #expect(stranger.status == 404, "\(stranger.status): \(stranger.body)")
        #expect(stranger.location == nil)
        // Followed as an operator would (the credentials go along to the other node).
        let body = #"{"op":"addToPreList","names":["Planned from any node"]}"#
        let operation = try await Curl.run([
            "-L", "--location-trusted", "-u", "\(ServerProcess.app.key):\(ServerProcess.app.secret)", "-X", "POST",
            "-H", "Content-Type: application/json", "--data", body, "http://127.0.0.1:\(second.port)\(path)/operations",
        ])
        #expect(operation.status == 200, "\(operation.body)")
        let planned = try await within("the pre-list change") { try await host.event("preListChanged") }
        #expect("\(planned)".contains("Planned from any node"))
        for node in cluster.nodes { node.kill(SIGKILL) }
    }
}

/// Two first joins of one name reaching two nodes at once make one session: the database
/// refuses the second opening, and that join is sent to the node that won.
@Suite(.serialized) struct ClusterNameRaceTests {
    @Test func twoFirstJoinsOfOneNameOnTwoNodesMakeOneSessionAndNeitherFails() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 10)
        for round in 0..<20 {
            let name = "Race \(round)"
            let token = try cluster.token(session: name, role: .host)
            let clients = [try await TestClient.connect(url: cluster.urls[0]), try await TestClient.connect(url: cluster.urls[1])]
            let replies = try await withThrowingTaskGroup(of: JSON.self) { group in
                for client in clients {
                    group.addTask { try await client.reply(to: try await client.send("join", ["session": name, "userName": "Ada", "token": token])) }
                }
                return try await group.reduce(into: [JSON]()) { $0.append($1) }
            }
            let refusals = replies.compactMap { $0["error"] as? JSON }
            #expect(refusals.count < 2, "one of them joined: \(replies)")
            for refusal in refusals { #expect(refusal["code"] as? Int == 1015, "only ever sent to the other node: \(refusal)") }
            for client in clients { await client.close() }
        }
        for node in cluster.nodes { node.kill(SIGKILL) }
    }
}

/// `curl`, as an operator calls the control API.
enum Curl {
    struct Result {
        let status: Int
        let location: String?
        let body: String
        var json: JSON {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return [:] }
            return object.mapValues { SendableJSON.wrap($0) }
        }
    }

    /// Runs curl and waits for it on a thread of its own, off Swift's cooperative pool.
    static func run(_ arguments: [String]) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // The status and the redirect's target on the last line, after the body.
        process.arguments = ["curl", "-s", "-w", "\n%{http_code} %{redirect_url}"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        let data: Data = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let data = handle.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.lastIndex(of: "\n") else { throw TestFailure("curl said nothing") }
        let trailer = text[text.index(after: split)...].split(separator: " ", maxSplits: 1)
        guard let status = trailer.first.flatMap({ Int($0) }) else { throw TestFailure("no status from curl: \(text)") }
        let location = trailer.count > 1 && !trailer[1].isEmpty ? String(trailer[1]) : nil
        return Result(status: status, location: location, body: String(text[..<split]))
    }
}
