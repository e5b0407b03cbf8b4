import CaucusCore
import CaucusStore
import Foundation
import Testing

@testable import CaucusServer

/// Starting and stopping recording over HTTP (`/v1/sessions/{id}/recording/start|stop`):
/// everyone connected is told, the session view shows it, and refusals change nothing.
extension ControlAPITests {
    /// A location list as JSON has it: a room id, or nil for the main session (`null`).
    static func locations(_ value: Any?) -> [Int?]? {
        (value as? [Any])?.map { $0 as? Int }
    }

    @Test func recordingStartsAndStopsOverHTTPAndEveryoneIsTold() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let annID = try #require(await ann.user)
        try await api.perform(id, "createRooms", ["count": 2])
        let rooms = try await api.session(id).object("breakout").objects("rooms").compactMap { $0.int("id") }
        try await api.perform(id, "assign", ["users": [annID], "room": rooms[0]])
        let recording = "/v1/sessions/\(id)/recording"

        // A participant cannot, over its own connection.
        #expect(try await ann.refused("startRecording", ["all": true]) == 3001)

        let started = try await api.send("POST", "\(recording)/start", body: #"{"all": true}"#)
        #expect(started.status == 200, "\(started.body)")
        #expect(started.json.int("seq") == (try await api.seq(id)))
        for client in [teacher, ann] {
            let told = try await within("recording every room") { try await client.event("recordingChanged") }
            #expect(told.event.bool("everyRoom") == true && Self.locations(told.event["locations"]) == [])
        }
        var view = try await api.session(id).object("recording")
        #expect(view.bool("everyRoom") == true && Self.locations(view["recorded"]) == rooms.map { $0 })

        // The main session too, named as null; the operations route takes the same arguments.
        let main = try await api.send("POST", "\(recording)/start", body: #"{"locations": [null]}"#)
        #expect(main.status == 200, "\(main.body)")
        let mainTold = try await within("the main session recorded") { try await teacher.event("recordingChanged") }
        #expect(Self.locations(mainTold.event["locations"]) == [nil])
        view = try await api.session(id).object("recording")
        #expect(Self.locations(view["recorded"]) == [nil] + rooms.map { $0 })
        try await api.perform(id, "stopRecording", ["locations": [rooms[1]]])
        view = try await api.session(id).object("recording")
        #expect(view.bool("everyRoom") == false && Self.locations(view["recorded"]) == [nil, rooms[0]])

        // Refusals: each changes nothing.
        func refused(_ label: String, _ path: String, _ body: String, status: Int, code: Int) async throws {
            let before = try await api.send("GET", "/v1/sessions/\(id)").body
            let reply = try await api.send("POST", path, body: body)
            #expect(reply.status == status && reply.errorCode == code, "\(label): \(reply.status) \(reply.body)")
            #expect(try await api.send("GET", "/v1/sessions/\(id)").body == before, "\(label) changed the session")
        }
        try await refused("already recorded", "\(recording)/start", #"{"locations": [null]}"#, status: 400, code: 7006)
        try await refused("not recorded", "\(recording)/stop", "{\"locations\": [\(rooms[1])]}", status: 400, code: 7007)
        try await refused("both", "\(recording)/start", #"{"all": true, "locations": [null]}"#, status: 400, code: 7008)
        try await refused("neither", "\(recording)/start", "{}", status: 400, code: 7008)
        try await refused("no location", "\(recording)/start", #"{"locations": []}"#, status: 400, code: 7008)
        try await refused("twice", "\(recording)/stop", #"{"locations": [null, null]}"#, status: 400, code: 7008)
        try await refused("unknown room", "\(recording)/start", #"{"locations": [999]}"#, status: 404, code: 4008)
        try await refused("not a location", "\(recording)/start", #"{"locations": ["main"]}"#, status: 400, code: 1004)
        // Null names the main session inside `locations` only.
        try await refused("null locations", "\(recording)/start", #"{"locations": null}"#, status: 400, code: 1004)
        try await refused("a nested null", "\(recording)/start", #"{"locations": [[null]]}"#, status: 400, code: 1004)
        try await refused("null all", "\(recording)/stop", #"{"all": null}"#, status: 400, code: 1004)
        try await refused("not JSON", "\(recording)/start", #"{"all": tru"#, status: 400, code: 1001)
        try await refused("not an object", "\(recording)/start", #"[true]"#, status: 400, code: 1001)
        try await refused("an op of its own", "\(recording)/start", #"{"op": "stopRecording", "all": true}"#, status: 400, code: 1001)
        let anonymous = try await ControlAPI.raw(port: api.port, "POST", "\(recording)/start", headers: [:], body: #"{"all": true}"#)
        #expect(anonymous.status == 401)
        let wrongMethod = try await api.send("GET", "\(recording)/start")
        #expect(wrongMethod.status == 405)

        let stopped = try await api.send("POST", "\(recording)/stop", body: #"{"all": true}"#)
        #expect(stopped.status == 200, "\(stopped.body)")
        let annTold = try await within("everything stopped") {
            try await ann.event("recordingChanged") { frame in
                let event = frame["event"] as? [String: any Sendable] ?? [:]
                return event["everyRoom"] as? Bool == false && (event["locations"] as? [Any])?.isEmpty == true
            }
        }
        #expect(annTold.event.bool("everyRoom") == false)
        #expect(try await api.session(id)["recording"] == nil)
        try await refused("nothing to stop", "\(recording)/stop", #"{"all": true}"#, status: 400, code: 7007)
        await server.stop()
    }

    /// A location's files are written while it is recorded: deleting it (or every location)
    /// then is refused with 409 and removes nothing; once stopped, it goes.
    @Test func aLocationBeingRecordedIsNotDeletedUntilItsRecordingStops() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let timeline = try await api.recordMain(of: id, on: server)
        for path in ["/v1/sessions/\(id)/recordings/main", "/v1/sessions/\(id)/recordings"] {
            let refused = try await api.send("DELETE", path)
            #expect(refused.status == 409 && refused.errorCode == 7006, "\(path): \(refused.status) \(refused.body)")
            #expect(FileManager.default.fileExists(atPath: timeline), "\(path) deleted a location being recorded")
        }
        #expect(try await api.send("POST", "/v1/sessions/\(id)/recording/stop", body: #"{"all": true}"#).status == 200)
        try await within("the main session's recording stopped") {
            while (try? String(contentsOfFile: timeline, encoding: .utf8))?.contains("recordingStopped") != true {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let deleted = try await api.send("DELETE", "/v1/sessions/\(id)/recordings/main")
        #expect(deleted.status == 200, "\(deleted.body)")
        #expect(!FileManager.default.fileExists(atPath: timeline))

        // A session that ends while recorded ends its files, and its media loop keeps nothing of it.
        #expect(try await api.send("POST", "/v1/sessions/\(id)/recording/start", body: #"{"locations": [null]}"#).status == 200)
        try await within("the main session's new timeline") {
            while !FileManager.default.fileExists(atPath: timeline) { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(try await api.send("DELETE", "/v1/sessions/\(id)").status == 200)
        try await within("the recording ended with the session") {
            while (try? String(contentsOfFile: timeline, encoding: .utf8))?.contains(#""reason":"ended""#) != true {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await server.server.media.routingRecomputations(of: StoredSessionID(rawValue: Int64(id))) == nil, "the ended session is still on the media loop")
        _ = teacher
        await server.stop()
    }
}
