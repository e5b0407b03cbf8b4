import CaucusCore
import Foundation
import Testing

/// The HTTP control API over a real server, with users connected over WebSocket watching
/// what it does.
@Suite(.serialized) struct ControlAPITests {
    /// Every route `ControlRoutes.swift` registers. The router cannot be enumerated, so this
    /// list is kept by hand, and checked against the source, the OpenAPI document and the
    /// server's answers.
    static let routes: Set<String> = [
        "GET /healthz",
        "GET /readyz",
        "GET /metrics",
        "GET /openapi.json",
        "GET /v1/sessions",
        "GET /v1/sessions/{id}",
        "DELETE /v1/sessions/{id}",
        "DELETE /v1/sessions/{id}/users/{user}",
        "POST /v1/sessions/{id}/operations",
        "GET /v1/sessions/{id}/recordings",
        "DELETE /v1/sessions/{id}/recordings",
        "GET /v1/sessions/{id}/recordings/{location}/{file}",
        "DELETE /v1/sessions/{id}/recordings/{location}",
        "POST /v1/sessions/{id}/recording/start",
        "POST /v1/sessions/{id}/recording/stop",
        "GET /v1/history",
    ]

    // MARK: - Health and metrics

    @Test func healthzAnswersOkWithoutCredentials() async throws {
        let server = try await TestServer.start()
        let reply = try await HTTP.get(server, "/healthz")
        #expect(reply.status == 200)
        #expect(reply.json.string("status") == "ok")
        #expect(reply.json.count == 1, "just {\"status\": \"ok\"}: \(reply.body)")
        // Credentials, even bad ones, do not matter here.
        let withBadCredentials = try await ControlAPI.raw(port: server.port, "GET", "/healthz", headers: ["Authorization": "Basic !!"])
        #expect(withBadCredentials.status == 200)
        await server.stop()
    }

    @Test func readyzAnswersReadyWithoutCredentials() async throws {
        let server = try await TestServer.start()
        let reply = try await HTTP.get(server, "/readyz")
        #expect(reply.status == 200)
        #expect(reply.json.string("status") == "ready")
        await server.stop()
    }

    @Test func metricsArePrometheusTextWithEventDeliveryGaugeAndLatencySeries() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        try await host.request("chat", ["text": "hello"])
        _ = try await within("Ann hears the chat") { try await ann.event("chatMessage") }
        let reply = try await HTTP.get(server, "/metrics")
        #expect(reply.status == 200)
        let text = reply.body
        for (name, type) in [
            ("caucus_events_total", "counter"), ("caucus_deliveries_total", "counter"), ("caucus_sessions", "gauge"),
            ("caucus_users", "gauge"), ("caucus_request_duration_seconds", "histogram"),
            ("caucus_fanout_duration_seconds", "histogram"),
        ] {
            #expect(text.contains("# TYPE \(name) \(type)\n"), "\(name) is declared a \(type)")
        }
        // Every sample line is `name{labels} value`.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.wholeMatch(of: /[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+0-9.eE]+|[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? (\+|-)?Inf|.* NaN/) != nil,
                "a Prometheus sample: \(line)")
        }
        // The session's start, two joins and a chat are four events; delivered were Ann's join
        // (to the host: a joiner is attached once its join is durable) and the chat (to both).
        #expect(try #require(Self.sample(text, "caucus_events_total")) >= 4)
        #expect(try #require(Self.sample(text, "caucus_deliveries_total")) >= 3)
        #expect(text.contains("# TYPE caucus_joins_total counter\n"))
        #expect(try #require(Self.sample(text, "caucus_joins_total")) >= 2)
        #expect(try #require(Self.sample(text, "caucus_sessions")) >= 1)
        #expect(try #require(Self.sample(text, "caucus_users")) >= 2)
        // The WebSocket requests were timed, and so were the fan-outs.
        #expect(try #require(Self.sample(text, "caucus_request_duration_seconds_count")) >= 3)
        #expect(try #require(Self.sample(text, "caucus_fanout_duration_seconds_count")) >= 1)
        #expect(text.contains("caucus_request_duration_seconds_bucket{le=\"+Inf\"}"))
        // The slow-client counter is registered with the others, so it is there (0 unless some
        // other test of this process dropped a client) before any client is dropped.
        #expect(text.contains("# TYPE caucus_slow_clients_dropped_total counter\n"))
        #expect(try #require(Self.sample(text, "caucus_slow_clients_dropped_total")) >= 0)
        // The gauges follow the server: one more user is counted on the next scrape.
        let ben = try await server.joined("Ben")
        let again = try await HTTP.get(server, "/metrics").body
        #expect(try #require(Self.sample(again, "caucus_users")) >= 3)
        withExtendedLifetime(ben) {}
        await server.stop()
    }

    /// The value of the unlabelled sample `name` in Prometheus text.
    static func sample(_ text: String, _ name: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    // MARK: - Authentication

    @Test func everyV1RouteRefusesMissingWrongUnknownOrMalformedCredentialsWith401() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let before = try await api.send("GET", "/v1/sessions/\(id)").body
        let (key, secret) = api.auth
        let credentials: [(String, [String: String])] = [
            ("no Authorization header", [:]),
            ("wrong secret", ["Authorization": ControlAPI.basic(key, secret + "x")]),
            ("secret of another length", ["Authorization": ControlAPI.basic(key, String(secret.dropLast()))]),
            ("unknown key", ["Authorization": ControlAPI.basic("no-such-app", secret)]),
            ("empty key and secret", ["Authorization": ControlAPI.basic("", "")]),
            ("not base64", ["Authorization": "Basic !!!not-base64!!!"]),
            ("no colon", ["Authorization": "Basic " + Data((key + secret).utf8).base64EncodedString()]),
            ("no credentials after the scheme", ["Authorization": "Basic "]),
            ("another scheme", ["Authorization": "Bearer \(secret)"]),
        ]
        let annID = try #require(await ann.user)
        let requests: [(String, String, String?)] = [
            ("GET", "/v1/sessions", nil),
            ("GET", "/v1/sessions/\(id)", nil),
            ("GET", "/v1/history", nil),
            ("POST", "/v1/sessions/\(id)/operations", #"{"op": "addToPreList", "names": ["Red"]}"#),
            ("DELETE", "/v1/sessions/\(id)/users/\(annID)", nil),
            ("DELETE", "/v1/sessions/\(id)", nil),
        ]
        for (label, headers) in credentials {
            for (method, path, body) in requests {
                let reply = try await ControlAPI.raw(port: server.port, method, path, headers: headers, body: body)
                #expect(reply.status == 401, "\(label): \(method) \(path) answered \(reply.status)")
                #expect(reply.errorCode == 1011, "\(label): \(method) \(path): \(reply.body)")
                #expect(reply.error.string("name") == "unauthorized")
                #expect(reply.error.string("message")?.isEmpty == false)
            }
        }
        // Nothing happened: no pre-list, nobody removed, the session still there.
        #expect(try await api.send("GET", "/v1/sessions/\(id)").body == before)
        #expect(try await host.settledEvents().compactMap { TestClient.type(of: $0) } == ["userJoined"], "only Ann's join")
        #expect(try await ann.settledEvents().isEmpty)
        // The right credentials work.
        #expect(try await api.send("GET", "/v1/sessions").status == 200)
        await server.stop()
    }

    @Test func anotherAppsSessionIsNotFoundAndUnlisted() async throws {
        let server = try await MultiAppServer.start(appKeys: ["school", "clinic"])
        let (school, clinic) = (server.apps[0], server.apps[1])
        let teacher = try await server.joined("Teacher", session: "Class", app: school, role: .host)
        let ann = try await server.joined("Ann", session: "Class", app: school)
        // The same name in another app is another session.
        let doctor = try await server.joined("Doctor", session: "Class", app: clinic, role: .host)
        let schoolAPI = ControlAPI(port: server.port, app: school)
        let clinicAPI = ControlAPI(port: server.port, app: clinic)
        let schoolSessions = try await schoolAPI.sessions()
        let clinicSessions = try await clinicAPI.sessions()
        #expect(schoolSessions.count == 1 && clinicSessions.count == 1)
        #expect(schoolSessions.first?.int("users") == 2 && clinicSessions.first?.int("users") == 1)
        let schoolID = try #require(schoolSessions.first?.int("id"))
        let clinicID = try #require(clinicSessions.first?.int("id"))
        #expect(schoolID != clinicID)
        let before = try await schoolAPI.send("GET", "/v1/sessions/\(schoolID)").body
        let annID = try #require(await ann.user)
        let attempts: [(String, String, String?)] = [
            ("GET", "/v1/sessions/\(schoolID)", nil),
            ("POST", "/v1/sessions/\(schoolID)/operations", #"{"op": "addToPreList", "names": ["Red"]}"#),
            ("DELETE", "/v1/sessions/\(schoolID)/users/\(annID)", nil),
            ("DELETE", "/v1/sessions/\(schoolID)", nil),
        ]
        for (method, path, body) in attempts {
            let reply = try await clinicAPI.send(method, path, body: body)
            #expect(reply.status == 404, "the clinic's \(method) \(path) answered \(reply.status)")
            #expect(reply.errorCode == 1012, "\(method) \(path): \(reply.body)")
            #expect(reply.error.string("name") == "notFound")
        }
        // No session at all, or an id that is no number: the same answer.
        for path in ["/v1/sessions/999999", "/v1/sessions/abc", "/v1/sessions/999999/operations"] {
            let reply = try await schoolAPI.send(path.hasSuffix("operations") ? "POST" : "GET", path, body: path.hasSuffix("operations") ? #"{"op": "commit"}"# : nil)
            #expect(reply.status == 404 && reply.errorCode == 1012, "\(path): \(reply.status) \(reply.body)")
        }
        // The school's session is untouched, and the clinic's own is fine.
        #expect(try await schoolAPI.send("GET", "/v1/sessions/\(schoolID)").body == before)
        #expect(try await teacher.settledEvents().compactMap { TestClient.type(of: $0) } == ["userJoined"], "only Ann's join")
        #expect(try await clinicAPI.session(clinicID).objects("users").map { $0.string("name") } == ["Doctor"])
        // History is per app too.
        let schoolHistory = try await schoolAPI.send("GET", "/v1/history").json.objects("sessions")
        #expect(schoolHistory.map { $0.int("id") } == [schoolID])
        #expect(schoolHistory.allSatisfy { $0.string("app") == "school" })
        withExtendedLifetime(doctor) {}
        await server.stop()
    }

    // MARK: - Reading sessions

    @Test func theSessionListShowsEachLiveSessionWithItsUsersStatusAndSeq() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        _ = try await server.joined("Ann")
        _ = try await server.joined("Ben")
        let professor = try await server.joined("Prof", session: "Lab", role: .host)
        let api = ControlAPI(server)
        let list = try await api.sessions()
        #expect(list.map { $0.string("name") } == ["Class", "Lab"])
        #expect(list.map { $0.int("users") } == [3, 1])
        #expect(list.map { $0.string("status") } == ["none", "none"])
        let ids = list.compactMap { $0.int("id") }
        #expect(ids.count == 2 && ids[0] < ids[1])
        for entry in list {
            #expect(Set(entry.keys) == ["id", "name", "createdAt", "users", "status", "seq"])
            #expect((entry.int("createdAt") ?? 0) > 1_600_000_000_000, "createdAt is Unix milliseconds")
            let seq = try await api.seq(try #require(entry.int("id")))
            #expect(entry.int("seq") == seq, "the list's seq is the view's")
        }
        // The seq is the one the session's clients see.
        try await teacher.request("ping")
        #expect(list[0].int("seq") == (await teacher.lastSeq))
        try await professor.request("ping")
        #expect(list[1].int("seq") == (await professor.lastSeq))
        // The list follows the session: its status and seq move with each operation.
        let seq = try await api.perform(ids[0], "addToPreList", ["names": ["Red"]])
        let committed = try await api.perform(ids[0], "commit")
        #expect(committed == (seq ?? 0) + 1)
        let after = try await api.sessions()
        #expect(after.first?.string("status") == "committed")
        #expect(after.first?.int("seq") == committed)
        #expect(after.last?.int("seq") == list.last?.int("seq"), "the other session did not move")
        await server.stop()
    }

    @Test func theSessionViewShowsUsersWithRolesAndLocationsRoomsWithOccupantsThePreListAndSettings() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        let cat = try await server.joined("Cat")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let (teacherID, annID, benID, catID) = (try #require(await teacher.user), try #require(await ann.user), try #require(await ben.user), try #require(await cat.user))
        try await api.perform(id, "makeManager", ["user": benID])
        try await api.perform(id, "addToPreList", ["names": ["Red", "Blue"]])
        try await api.perform(id, "commit")
        try await api.perform(id, "start")
        let rooms = try await api.session(id).object("breakout").objects("rooms")
        let (red, blue) = (try #require(rooms.first?.int("id")), try #require(rooms.last?.int("id")))
        try await api.perform(id, "assign", ["users": [annID], "room": red])
        try await api.perform(id, "addToPreList", ["names": ["Green"]])
        try await ann.request("requestHelp")
        _ = try await within("help requested") { try await teacher.event("helpRequested") }

        let view = try await api.session(id)
        #expect(view.int("id") == id)
        #expect(view.string("name") == "Class")
        #expect(view.int("hostID") == teacherID)
        #expect(view.string("mode") == "group")
        #expect((view.int("createdAt") ?? 0) > 1_600_000_000_000)
        try await teacher.request("ping")
        #expect(view.int("seq") == (await teacher.lastSeq))
        let users = view.objects("users")
        #expect(users.count == 4)
        func user(_ id: Int) -> JSON { users.first { $0.int("id") == id } ?? [:] }
        #expect(user(teacherID).string("role") == "host")
        #expect(user(annID).string("role") == "participant")
        #expect(user(benID).string("role") == "manager")
        #expect(user(catID).string("role") == "participant")
        #expect(user(annID).string("name") == "Ann")
        #expect(user(annID).int("location") == red, "Ann is in Red")
        for other in [teacherID, benID, catID] {
            #expect(user(other).keys.contains("location") && user(other).int("location") == nil, "user \(other) is in the main session")
        }
        #expect(users.allSatisfy { $0.object("presence").bool("connected") == true })
        #expect(users.allSatisfy { ($0.int("joinedAt") ?? 0) > 1_600_000_000_000 })
        let breakout = view.object("breakout")
        #expect(view.breakoutStatus == "started")
        #expect(breakout.objects("rooms").map { $0.string("name") } == ["Red", "Blue"])
        #expect(breakout.objects("rooms").map { $0.ints("occupants") } == [[annID], []])
        #expect(breakout.objects("rooms").map { $0.int("id") } == [red, blue])
        #expect(breakout.object("parent").bool("paused") == false)
        #expect(view.objects("preList").map { $0.string("name") } == ["Red", "Blue", "Green"])
        let settings = view.object("settings")
        #expect(settings.bool("selfSelectAllowed") == true)
        #expect(settings.bool("returnToMainAllowed") == true)
        #expect(settings.bool("autoMoveOnStart") == true)
        #expect(settings.string("roomCreators") == "managers")
        #expect(settings.int("countdownSeconds") == 60)
        #expect(settings.ints("timerWarningSeconds") == [60])
        let help = view.objects("helpRequests")
        #expect(help.count == 1)
        #expect(help.first?.int("requester") == annID && help.first?.string("roomName") == "Red")
        await server.stop()
    }

}
