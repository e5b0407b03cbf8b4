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
        "GET /metrics",
        "GET /openapi.json",
        "GET /v1/sessions",
        "GET /v1/sessions/{id}",
        "DELETE /v1/sessions/{id}",
        "DELETE /v1/sessions/{id}/users/{user}",
        "POST /v1/sessions/{id}/operations",
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

    // MARK: - Running breakouts over HTTP

    @Test func aWholePlannedBreakoutRunsOverHTTPWhileClientsWatchOverWebSocket() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        let cat = try await server.joined("Cat")
        let everyone = [teacher, ann, ben, cat]
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let (teacherID, annID, benID, catID) = (try #require(await teacher.user), try #require(await ann.user), try #require(await ben.user), try #require(await cat.user))
        var lastSeq = try await api.seq(id)
        /// Runs an operation; its seq must follow the last one and be the session's seq now.
        func run(_ op: String, _ arguments: JSON = [:]) async throws {
            let seq = try #require(try await api.perform(id, op, arguments), "\(op) caused an event")
            #expect(seq > lastSeq, "\(op) moved seq on")
            #expect(try await api.seq(id) == seq, "\(op)'s seq is the session's")
            lastSeq = seq
        }

        // Plan: the pre-list is the host's alone.
        try await run("addToPreList", ["names": ["Red", "Blue"]])
        let plan = try await within("the host hears the pre-list") { try await teacher.event("preListChanged") }
        #expect(plan.event.objects("preList").map { $0.string("name") } == ["Red", "Blue"])
        #expect(try await ann.settledEvents().allSatisfy { TestClient.type(of: $0) != "preListChanged" })
        try await run("preAssign", ["users": [annID], "name": "Red"])
        #expect(try await api.session(id).objects("preList").map { $0.ints("assigned") } == [[annID], []])

        // Commit: everyone sees the committed list with Ann expected in Red.
        try await run("commit")
        for client in everyone {
            let committed = try await client.statusChanged(to: "committed")
            let rooms = committed.event.object("breakout").objects("rooms")
            #expect(rooms.map { $0.string("name") } == ["Red", "Blue"])
            #expect(rooms.first?.ints("assigned") == [annID])
        }
        let rooms = try await api.session(id).object("breakout").objects("rooms")
        let (red, blue) = (try #require(rooms.first?.int("id")), try #require(rooms.last?.int("id")))
        #expect(try await api.session(id).breakoutStatus == "committed")

        // Start with a timer and auto-assign: Ann goes to Red, Ben and Cat somewhere, the host stays.
        let startedAt = Int(Date().timeIntervalSince1970 * 1000)
        try await run("start", ["durationSeconds": 600, "autoAssign": true])
        for client in everyone {
            let started = try await client.statusChanged(to: "started")
            let breakout = started.event.object("breakout")
            let endsAt = try #require(breakout.object("timer").int("endsAt"))
            #expect((startedAt + 590_000...startedAt + 610_000).contains(endsAt), "a 600 s timer")
            let occupants = breakout.objects("rooms").map { $0.ints("occupants") ?? [] }
            #expect(occupants.first?.contains(annID) == true)
            #expect(Set(occupants.joined()) == [annID, benID, catID])
        }
        var view = try await api.session(id)
        #expect(view.breakoutStatus == "started")
        #expect(view.object("breakout").object("timer").int("endsAt") != nil)
        func location(_ user: Int, in view: JSON) -> Int? { view.objects("users").first { $0.int("id") == user }?.int("location") }
        #expect(location(annID, in: view) == red)
        #expect(location(teacherID, in: view) == nil)
        for room in view.object("breakout").objects("rooms") {
            for occupant in room.ints("occupants") ?? [] { #expect(location(occupant, in: view) == room.int("id")) }
        }

        // Assign Cat to the room Cat is not in.
        let catRoom = try #require(location(catID, in: view))
        let otherRoom = catRoom == red ? blue : red
        try await run("assign", ["users": [catID], "room": otherRoom])
        for client in everyone {
            let moved = try await within("Cat's move") { try await client.event("usersMoved") }
            let moves = moved.event.objects("moves")
            #expect(moves.count == 1 && moves.first?.int("user") == catID && moves.first?.int("to") == otherRoom)
        }
        #expect(location(catID, in: try await api.session(id)) == otherRoom)

        // Broadcast reaches every room and the main session; it is from nobody in the session.
        try await run("broadcast", ["text": "Two minutes left"])
        for client in everyone {
            let broadcast = try await within("broadcast") { try await client.event("broadcast") }
            #expect(broadcast.event.string("text") == "Two minutes left")
            #expect(broadcast.event["from"] == nil)
        }

        // Parent control.
        try await run("pauseParent")
        let paused = try await within("paused") { try await teacher.event("parentControlChanged") }
        #expect(paused.event.object("parent").bool("paused") == true)
        try await run("muteParent", ["audio": true, "video": false])
        let muted = try await within("muted") { try await teacher.event("parentControlChanged") }
        #expect(muted.event.object("parent").bool("audioMuted") == true)
        #expect(muted.event.object("parent").bool("videoMuted") == false)
        let parent = try await api.session(id).object("breakout").object("parent")
        #expect(parent.bool("paused") == true && parent.bool("audioMuted") == true && parent.bool("videoMuted") == false)

        // Send Ann back.
        try await run("returnUser", ["user": annID])
        let back = try await within("Ann back") { try await ann.event("usersMoved") }
        #expect(back.event.objects("moves").first?.int("user") == annID)
        #expect(back.event.objects("moves").first?.int("to") == nil)
        #expect(location(annID, in: try await api.session(id)) == nil)

        // Stop at once: everyone back, rooms kept but empty, the parent open again.
        try await run("stop", ["countdownSeconds": 0])
        for client in everyone {
            let stopped = try await client.statusChanged(to: "stopped")
            let breakout = stopped.event.object("breakout")
            #expect(breakout.objects("rooms").count == 2)
            #expect(breakout.objects("rooms").allSatisfy { $0.ints("occupants") == [] })
        }
        view = try await api.session(id)
        #expect(view.breakoutStatus == "stopped")
        #expect(view.objects("users").allSatisfy { $0.int("location") == nil })
        #expect(view.object("breakout").object("parent").bool("paused") == false)
        #expect(view.object("breakout").object("timer").isEmpty)

        // Withdraw: the committed list is gone.
        try await run("withdraw")
        for client in everyone {
            let withdrawn = try await client.statusChanged(to: "withdrawn")
            #expect(withdrawn.event.object("breakout").objects("rooms").isEmpty)
        }
        view = try await api.session(id)
        #expect(view.breakoutStatus == "withdrawn")
        #expect(view.object("breakout").objects("rooms").isEmpty)
        #expect(try await api.sessions().first?.string("status") == "withdrawn")
        await server.stop()
    }

    @Test func createAndInviteRoomsOverHTTPThenDestroyThemAll() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        let cat = try await server.joined("Cat")
        let everyone = [teacher, ann, ben, cat]
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let (annID, benID, catID) = (try #require(await ann.user), try #require(await ben.user), try #require(await cat.user))
        func location(_ user: Int, in view: JSON) -> Int? { view.objects("users").first { $0.int("id") == user }?.int("location") }

        // Two empty rooms with a capacity, open at once.
        try await api.perform(id, "createRooms", ["count": 2, "definition": ["capacity": 3]])
        for client in everyone {
            let created = try await client.statusChanged(to: "started")
            let rooms = created.event.object("breakout").objects("rooms")
            #expect(rooms.map { $0.string("name") } == ["Room 1", "Room 2"])
            #expect(rooms.allSatisfy { $0.object("definition").int("capacity") == 3 && $0.ints("occupants") == [] })
        }
        var view = try await api.session(id)
        let rooms = view.object("breakout").objects("rooms")
        let (room1, room2) = (try #require(rooms.first?.int("id")), try #require(rooms.last?.int("id")))

        // A third room, with every participant of the main session forced into it.
        try await api.perform(id, "createAndInvite", ["count": 1, "forceJoin": true])
        let third = try await ann.statusChanged(to: "started")
        let thirdRooms = third.event.object("breakout").objects("rooms")
        #expect(thirdRooms.map { $0.string("name") } == ["Room 1", "Room 2", "Room 3"])
        let room3 = try #require(thirdRooms.last?.int("id"))
        #expect(Set(thirdRooms.last?.ints("occupants") ?? []) == [annID, benID, catID])
        view = try await api.session(id)
        #expect([annID, benID, catID].allSatisfy { location($0, in: view) == room3 })

        // Invite with forceJoin moves at once.
        try await api.perform(id, "invite", ["users": [annID], "room": room1, "forceJoin": true])
        let moved = try await within("Ann moved") { try await cat.event("usersMoved") }
        #expect(moved.event.objects("moves").map { $0.int("user") } == [annID])
        #expect(moved.event.objects("moves").first?.int("to") == room1)
        #expect(location(annID, in: try await api.session(id)) == room1)

        // Invite without it: Ben is invited (and the managers hear), nobody moves.
        let seqBefore = try await api.seq(id)
        try await api.perform(id, "invite", ["users": [benID], "room": room2])
        let invited = try await within("Ben invited") { try await ben.event("invited") }
        #expect(invited.event.object("invitation").int("room") == room2)
        #expect(invited.event.object("invitation").ints("users") == [benID])
        _ = try await within("the host hears the invitation") { try await teacher.event("invited") }
        #expect(try await cat.settledEvents().allSatisfy { TestClient.type(of: $0) != "invited" }, "Cat is not told")
        #expect(location(benID, in: try await api.session(id)) == room3)
        #expect(try await api.seq(id) == seqBefore + 1)

        // Destroy all: rooms gone, everyone back in the main session.
        try await api.perform(id, "destroyAll")
        for client in everyone {
            let destroyed = try await client.statusChanged(to: "withdrawn")
            #expect(destroyed.event.object("breakout").objects("rooms").isEmpty)
        }
        view = try await api.session(id)
        #expect(view.breakoutStatus == "withdrawn")
        #expect(view.objects("users").allSatisfy { $0.int("location") == nil })
        let again = try await api.operation(id, "destroyAll")
        #expect(again.status == 409 && again.errorCode == 4007, "\(again.body)")
        await server.stop()
    }

    @Test func updateSettingsOverHTTPChangesOnlyTheNamedFields() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let defaults = try await api.session(id).object("settings")
        #expect(defaults.bool("selfSelectAllowed") == true && defaults.int("countdownSeconds") == 60)

        try await api.perform(id, "updateSettings", ["settings": ["selfSelectAllowed": false, "countdownSeconds": 5] as JSON])
        let changed = try await within("Ann hears the settings") { try await ann.event("settingsChanged") }
        var expected = defaults
        expected["selfSelectAllowed"] = false
        expected["countdownSeconds"] = 5
        #expect(Self.same(changed.event.object("settings"), expected), "\(changed.event.object("settings"))")
        #expect(Self.same(try await api.session(id).object("settings"), expected))

        // A second partial change keeps the first.
        try await api.perform(id, "updateSettings", ["settings": ["roomCreators": "everyone", "timerWarningSeconds": [120, 30]] as JSON])
        expected["roomCreators"] = "everyone"
        expected["timerWarningSeconds"] = [120, 30]
        #expect(Self.same(try await api.session(id).object("settings"), expected))
        _ = try await within("the host hears it") { try await teacher.event("settingsChanged") }

        // Out of bounds or of the wrong type: refused, nothing changes.
        let seq = try await api.seq(id)
        let outOfBounds = try await api.operation(id, "updateSettings", ["settings": ["countdownSeconds": -1]])
        #expect(outOfBounds.status == 400 && outOfBounds.errorCode == 6001, "\(outOfBounds.body)")
        let wrongType = try await api.operation(id, "updateSettings", ["settings": ["selfSelectAllowed": "no"]])
        #expect(wrongType.status == 400 && wrongType.errorCode == 1004, "\(wrongType.body)")
        let missing = try await api.operation(id, "updateSettings")
        #expect(missing.status == 400 && missing.errorCode == 1004, "\(missing.body)")
        #expect(try await api.seq(id) == seq)
        #expect(Self.same(try await api.session(id).object("settings"), expected))

        // And the setting takes effect: participants may no longer choose a room.
        try await api.perform(id, "createRooms", ["count": 1])
        let room = try #require(try await api.session(id).object("breakout").objects("rooms").first?.int("id"))
        #expect(try await ann.refused("joinRoom", ["room": room]) == 4009)
        await server.stop()
    }

    /// Two settings objects as JSON values.
    static func same(_ a: JSON, _ b: JSON) -> Bool {
        func canonical(_ value: JSON) -> Data? { try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) }
        return canonical(a) != nil && canonical(a) == canonical(b)
    }

    // MARK: - Refusals

    @Test func refusalsOverHTTPAnswerWithTheirCodeAndChangeNothing() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let (teacherID, annID) = (try #require(await teacher.user), try #require(await ann.user))
        let operations = "/v1/sessions/\(id)/operations"

        /// Sends a request that must be refused with `status` and `code` (and the seed failure
        /// status `seedStatus`, or none), and must leave the session exactly as it was.
        func refused(
            _ label: String, _ method: String = "POST", _ path: String? = nil, body: String?, status: Int, code: Int,
            seedStatus: String? = nil
        ) async throws {
            let before = try await api.send("GET", "/v1/sessions/\(id)").body
            let reply = try await api.send(method, path ?? operations, body: body)
            #expect(reply.status == status, "\(label): answered \(reply.status) \(reply.body)")
            #expect(reply.errorCode == code, "\(label): \(reply.body)")
            #expect(reply.error.string("name")?.isEmpty == false && reply.error.string("message")?.isEmpty == false, "\(label)")
            #expect(reply.error.string("status") == seedStatus, "\(label): seed status in \(reply.body)")
            #expect(try await api.send("GET", "/v1/sessions/\(id)").body == before, "\(label) changed the session")
        }
        try await teacher.request("ping")
        let quietSince = await teacher.keptEvents().count

        // Wrong status, before anything is committed.
        try await refused("stop", body: #"{"op": "stop", "countdownSeconds": 0}"#, status: 409, code: 4007, seedStatus: "stopFailed")
        try await refused("start", body: #"{"op": "start"}"#, status: 409, code: 4007, seedStatus: "startFailed")
        try await refused("withdraw", body: #"{"op": "withdraw"}"#, status: 409, code: 4007, seedStatus: "withdrawFailed")
        try await refused("commit with an empty pre-list", body: #"{"op": "commit"}"#, status: 400, code: 4006, seedStatus: "commitFailed")
        try await refused("broadcast", body: #"{"op": "broadcast", "text": "hi"}"#, status: 409, code: 4007)
        try await refused("pauseParent", body: #"{"op": "pauseParent"}"#, status: 409, code: 4007)
        try await refused("extendTimer", body: #"{"op": "extendTimer", "seconds": 60}"#, status: 400, code: 4016)
        // Operations on the caller's own seat: the server has none.
        for body in [
            #"{"op": "chat", "text": "hello"}"#, #"{"op": "chat", "text": "hi", "to": 2}"#, #"{"op": "joinRoom", "room": 1}"#,
            #"{"op": "returnToMain"}"#, #"{"op": "requestHelp"}"#, #"{"op": "leave"}"#, #"{"op": "acceptInvitation", "room": 1}"#,
            #"{"op": "rejectInvitation", "room": 1}"#, #"{"op": "answerHelp", "request": 1, "answer": "join"}"#,
        ] {
            try await refused(body, body: body, status: 400, code: 3006)
        }
        // Not an operation, not JSON, wrong types.
        try await refused("unknown op", body: #"{"op": "teleport"}"#, status: 400, code: 1002)
        try await refused("a query", body: #"{"op": "getSnapshot"}"#, status: 400, code: 1002)
        try await refused("join", body: #"{"op": "join", "session": "Class", "userName": "X", "token": "t"}"#, status: 400, code: 1002)
        try await refused("bad JSON", body: #"{"op": "commit""#, status: 400, code: 1001)
        try await refused("not an object", body: #"[{"op": "commit"}]"#, status: 400, code: 1001)
        try await refused("empty body", body: "", status: 400, code: 1001)
        try await refused("no op", body: #"{"names": ["Red"]}"#, status: 400, code: 1004)
        try await refused("names not an array", body: #"{"op": "addToPreList", "names": "Red"}"#, status: 400, code: 1004)
        try await refused("names missing", body: #"{"op": "addToPreList"}"#, status: 400, code: 1004)
        try await refused("duration a string", body: #"{"op": "start", "durationSeconds": "600"}"#, status: 400, code: 1004)
        try await refused("room a string", body: #"{"op": "assign", "users": [2], "room": "Red"}"#, status: 400, code: 1004)
        try await refused("op a number", body: #"{"op": 7}"#, status: 400, code: 1004)
        // Unknown users.
        try await refused("remove an unknown user", "DELETE", "/v1/sessions/\(id)/users/99", body: nil, status: 404, code: 3002)
        try await refused("remove op on an unknown user", body: #"{"op": "remove", "user": 99}"#, status: 404, code: 3002)
        try await refused("manage an unknown user", body: #"{"op": "makeManager", "user": 99}"#, status: 404, code: 3002)
        try await refused("user id not a number", "DELETE", "/v1/sessions/\(id)/users/ann", body: nil, status: 400, code: 1004)
        try await refused("remove the host", "DELETE", "/v1/sessions/\(id)/users/\(teacherID)", body: nil, status: 400, code: 3005)

        // While subsessions run, commit, start and withdraw are in the wrong status.
        try await api.perform(id, "addToPreList", ["names": ["Red"]])
        try await api.perform(id, "commit")
        try await api.perform(id, "start")
        try await refused("commit while started", body: #"{"op": "commit"}"#, status: 409, code: 4007, seedStatus: "commitFailed")
        try await refused("start while started", body: #"{"op": "start"}"#, status: 409, code: 4007, seedStatus: "startFailed")
        try await refused("withdraw while started", body: #"{"op": "withdraw"}"#, status: 409, code: 4007, seedStatus: "withdrawFailed")
        try await refused("lecture with rooms", body: #"{"op": "setMode", "mode": "lecture"}"#, status: 409, code: 5008)
        try await refused("returnUser in main", body: #"{"op": "returnUser", "user": \#(annID)}"#, status: 400, code: 4011)
        try await refused("unmuteParent", body: #"{"op": "unmuteParent"}"#, status: 400, code: 5006)

        // Lecture mode refuses every breakout operation.
        try await api.perform(id, "stop", ["countdownSeconds": 0])
        try await api.perform(id, "withdraw")
        try await api.perform(id, "setMode", ["mode": "lecture"])
        #expect(try await api.session(id).string("mode") == "lecture")
        try await refused("addToPreList in lecture mode", body: #"{"op": "addToPreList", "names": ["Red"]}"#, status: 409, code: 5067)
        try await refused("createRooms in lecture mode", body: #"{"op": "createRooms", "count": 1}"#, status: 409, code: 5067)
        try await refused("lecture again", body: #"{"op": "setMode", "mode": "lecture"}"#, status: 400, code: 6001)

        // The clients heard the successful operations, and nothing of the refused ones.
        let heard = try await teacher.settledEvents().dropFirst(quietSince).compactMap { TestClient.type(of: $0) }
        #expect(heard == ["preListChanged", "statusChanged", "statusChanged", "statusChanged", "statusChanged", "modeChanged"])
        #expect(try await ann.settledEvents().compactMap { TestClient.type(of: $0) } == [
            "statusChanged", "statusChanged", "statusChanged", "statusChanged", "modeChanged",
        ])
        await server.stop()
    }

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
        let (status, output) = try OpenAPICheck.python(["-c", script], input: document)
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
        // Reads first, then the operation, then the deletions, the session's last.
        func order(_ operation: String) -> Int {
            if operation.hasPrefix("GET") { return 0 }
            if operation.hasPrefix("POST") { return 1 }
            return operation.contains("{user}") ? 2 : 3
        }
        let operations = OpenAPICheck.operations(in: document).sorted { (order($0), $0) < (order($1), $1) }
        #expect(operations.count == Self.routes.count)
        for operation in operations {
            let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
            let (method, template) = (parts[0], parts[1])
            let path = template.replacingOccurrences(of: "{id}", with: "\(id)").replacingOccurrences(of: "{user}", with: "\(annID)")
            let body = method == "POST" ? #"{"op": "addToPreList", "names": ["Probe"]}"# : nil
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
