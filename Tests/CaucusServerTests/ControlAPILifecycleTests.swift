import CaucusCore
import CaucusRecording
import Foundation
import Testing

/// Removing users, ending sessions, and the OpenAPI document.
extension ControlAPITests {
    // MARK: - Removing users and ending sessions

    @Test func deletingAUserRemovesThemAndClosesTheirSocketWith4003() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let annID = try #require(await ann.user)
        let reply = try await api.send("DELETE", "/v1/sessions/\(id)/users/\(annID)")
        #expect(reply.status == 200, "\(reply.body)")
        let seq = try #require(reply.json.int("seq"))
        #expect(try await api.seq(id) == seq)

        let told = try await within("Ann hears she was removed") { try await ann.event("userLeft") }
        #expect(told.event.int("user") == annID && told.event.string("reason") == "removed")
        #expect(try await within("Ann's socket closes") { try await ann.closed() } == 4003)
        for client in [teacher, ben] {
            let left = try await within("others hear Ann left") { try await client.event("userLeft") }
            #expect(left.event.int("user") == annID && left.event.string("reason") == "removed")
        }
        let view = try await api.session(id)
        #expect(view.objects("users").compactMap { $0.string("name") }.sorted() == ["Ben", "Teacher"])
        #expect(try await api.sessions().first?.int("users") == 2)
        // Her stay is over in the history.
        let history = try await api.send("GET", "/v1/history").json.objects("sessions")
        let stay = history.first?.objects("users").first { $0.int("userID") == annID }
        #expect(stay?.string("leaveReason") == "removed" && stay?.int("leftAt") != nil)
        // Removing her again: she is not there.
        let again = try await api.send("DELETE", "/v1/sessions/\(id)/users/\(annID)")
        #expect(again.status == 404 && again.errorCode == 3002, "\(again.body)")
        // The others stay connected.
        try await ben.request("ping")
        await server.stop()
    }

    @Test func deletingASessionEndsItForEveryoneAndItMovesToHistory() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let reply = try await api.send("DELETE", "/v1/sessions/\(id)")
        #expect(reply.status == 200, "\(reply.body)")
        #expect(reply.json.int("seq") != nil)
        for client in [teacher, ann, ben] {
            let ended = try await within("sessionEnded") { try await client.event("sessionEnded") }
            #expect(ended.event.string("reason") == "endedByServer")
            #expect(try await within("the socket closes") { try await client.closed() } == 4002)
        }
        // Gone from the live sessions.
        #expect(try await api.sessions().isEmpty)
        for (method, path, body) in [
            ("GET", "/v1/sessions/\(id)", nil), ("DELETE", "/v1/sessions/\(id)", nil),
            ("POST", "/v1/sessions/\(id)/operations", #"{"op": "addToPreList", "names": ["Red"]}"#),
        ] {
            let gone = try await api.send(method, path, body: body)
            #expect(gone.status == 404 && gone.errorCode == 1012, "\(method) \(path): \(gone.status) \(gone.body)")
        }
        // In the history, with its end and everyone's stay.
        let history = try await api.send("GET", "/v1/history").json.objects("sessions")
        let entry = try #require(history.first)
        #expect(entry.int("id") == id && entry.string("name") == "Class")
        let startedAt = try #require(entry.int("startedAt"))
        let endedAt = try #require(entry.int("endedAt"))
        #expect(endedAt >= startedAt)
        #expect(entry.string("endReason") == "endedByServer")
        let users = entry.objects("users")
        #expect(users.map { $0.string("name") } == ["Teacher", "Ann", "Ben"])
        for user in users {
            let joinedAt = try #require(user.int("joinedAt"))
            #expect(joinedAt >= startedAt && user.int("leftAt") == endedAt)
            #expect(user.string("leaveReason") == "sessionEnded")
        }
        // The name is free again: a join (in another case) makes a new session.
        let newcomer = try await server.joined("Dan", session: "CLASS", role: .host)
        let live = try await api.sessions()
        #expect(live.count == 1)
        let newID = try #require(live.first?.int("id"))
        #expect(newID != id && live.first?.string("name") == "CLASS" && live.first?.int("users") == 1)
        #expect(await newcomer.user == 1, "a new session numbers its users from 1")
        let both = try await api.send("GET", "/v1/history").json.objects("sessions")
        #expect(both.map { $0.int("id") } == [newID, id], "newest first")
        #expect(both.first?.int("endedAt") == nil, "the new one is live")
        let limited = try await api.send("GET", "/v1/history?limit=1").json.objects("sessions")
        #expect(limited.map { $0.int("id") } == [newID])
        await server.stop()
    }

    // MARK: - The OpenAPI document

    @Test func theOpenAPIDocumentIsOpenAPI310JSONWithEveryReferenceResolved() async throws {
        let server = try await TestServer.start()
        let reply = try await HTTP.get(server, "/openapi.json")
        #expect(reply.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        #expect((document["info"] as? [String: Any])?["title"] as? String != nil)
        #expect(!(document["paths"] as? [String: Any] ?? [:]).isEmpty)
        // Every $ref points into the document.
        var references: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String { references.append(reference) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        #expect(!references.isEmpty)
        for reference in references {
            #expect(reference.hasPrefix("#/"), "\(reference) is local")
            var node: Any? = document
            for part in reference.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
            #expect(node != nil, "\(reference) resolves")
        }
        await server.stop()
    }

    @Test(.enabled(if: OpenAPICheck.pythonValidatorAvailable, "python3 with openapi_spec_validator is not installed: validation skipped"))
    func theOpenAPIDocumentPassesOpenAPISpecValidator() async throws {
        let server = try await TestServer.start()
        let document = try await HTTP.get(server, "/openapi.json").body
        await server.stop()
        let script = "import sys, json\nfrom openapi_spec_validator import validate\nvalidate(json.load(sys.stdin))\nprint('valid')"
        let (status, output) = try await OpenAPICheck.python(["-c", script], input: document)
        #expect(status == 0, "openapi_spec_validator: \(output)")
        #expect(output.contains("valid"))
    }

    @Test func theDocumentedPathsAreExactlyTheRegisteredRoutes() async throws {
        let server = try await TestServer.start()
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(try await HTTP.get(server, "/openapi.json").body.utf8)) as? [String: Any])
        let documented = OpenAPICheck.operations(in: document)
        #expect(documented.subtracting(Self.routes).isEmpty, "documented but not routed: \(documented.subtracting(Self.routes).sorted())")
        #expect(Self.routes.subtracting(documented).isEmpty, "routed but not documented: \(Self.routes.subtracting(documented).sorted())")
        // The hand-kept list is the source's.
        let source = try OpenAPICheck.routesInSource()
        #expect(source == Self.routes, "ControlRoutes.swift registers \(source.sorted())")
        await server.stop()
    }

    @Test func everyDocumentedOperationAnswersWithADocumentedStatus() async throws {
        let server = try await TestServer.start()
        _ = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let annID = try #require(await ann.user)
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(try await HTTP.get(server, "/openapi.json").body.utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        // A recorded location of the session, as the recorder leaves it, for the recordings routes.
        let record = RecordingSessionRecord(app: api.key, session: Int64(id), name: "Class", createdAt: 0)
        let folder = try RecordingLayout(dataDirectory: server.dataDirectory).prepare(record, location: .main)
        try TimelineFile(creatingAt: folder + "/" + RecordingLayout.timelineFileName, location: "main", wallClock: 0).close()
        // Reads first, then the operation, then the deletions, deepest path first (the session's last).
        func order(_ operation: String) -> Int {
            if operation.hasPrefix("GET") { return 0 }
            if operation.hasPrefix("POST") { return 1 }
            return 10 - operation.split(separator: "/").count
        }
        let operations = OpenAPICheck.operations(in: document).sorted { (order($0), $0) < (order($1), $1) }
        #expect(operations.count == Self.routes.count)
        for operation in operations {
            let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
            let (method, template) = (parts[0], parts[1])
            let path = template.replacingOccurrences(of: "{id}", with: "\(id)").replacingOccurrences(of: "{user}", with: "\(annID)")
                .replacingOccurrences(of: "{location}", with: "main").replacingOccurrences(of: "{file}", with: RecordingLayout.timelineFileName)
            // Recording's routes take their operation's arguments alone (start comes before stop).
            let arguments = template.contains("/recording/") ? #"{"all": true}"# : #"{"op": "addToPreList", "names": ["Probe"]}"#
            let body = method == "POST" ? arguments : nil
            let reply = try await api.send(method, path, body: body)
            let responses = ((paths[template] as? [String: Any])?[method.lowercased()] as? [String: Any])?["responses"] as? [String: Any] ?? [:]
            #expect(reply.status != 404, "\(operation) is not routed: \(reply.body)")
            #expect(reply.status == 200, "\(operation) answered \(reply.status): \(reply.body)")
            #expect(responses.keys.contains(String(reply.status)), "\(operation)'s \(reply.status) is documented")
        }
        // The check above means something: an undocumented path is a 404.
        #expect(try await api.send("GET", "/v1/nowhere").status == 404)
        #expect(try await api.send("PUT", "/v1/sessions").status != 200)
        await server.stop()
    }
}
