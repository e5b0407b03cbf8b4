import CaucusCore
import Foundation
import Testing

/// Running breakouts over HTTP, and the refusals that change nothing.
extension ControlAPITests {
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
            let destroyed = try await client.statusChanged(to: "none")
            #expect(destroyed.event.object("breakout").objects("rooms").isEmpty)
        }
        view = try await api.session(id)
        #expect(view.breakoutStatus == "none")
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
}
