import CaucusCore
import Foundation
import Testing
@testable import CaucusServer

/// The media loop's report that it could not write a location (`SessionActor.recordingFailed`)
/// against a real server and real WebSocket clients: everyone is told which locations stopped
/// and why, the session goes on, and no client or app can send the report itself.
@Suite struct RecordingFailureWireTests {
    @Test func aFullDiskStopsARoomAndEveryoneIsToldWhy() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let bob = try await server.joined("Bob")
        let carl = try await server.joined("Carl")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        try await api.perform(id, "createRooms", ["count": 2])
        let rooms = try await api.session(id).object("breakout").objects("rooms").compactMap { $0.int("id") }
        let (annID, bobID) = (try #require(await ann.user), try #require(await bob.user))
        try await api.perform(id, "assign", ["users": [annID, bobID], "room": rooms[0]])
        _ = try await teacher.request("startRecording", ["locations": [rooms[0], rooms[1]]])
        for client in [teacher, ann, bob, carl] {
            _ = try await within("recording started") { try await client.event("recordingChanged") }
        }

        // Neither a client nor the app's server can send the report.
        #expect(try await teacher.refused("recordingFailed", ["locations": [rooms[0]], "reason": "diskFull"]) == 1002)
        let refused = try await api.send(
            "POST", "/v1/sessions/\(id)/operations", body: "{\"op\": \"recordingFailed\", \"locations\": [\(rooms[0])], \"reason\": \"diskFull\"}")
        #expect(refused.status == 400 && refused.errorCode == 1002, "\(refused.body)")

        // The media loop reports from outside the actor, as it will.
        let session = try #require(await server.server.registry.session(app: server.app.key, named: "Class"))
        await Task { await session.recordingFailed([.room(RoomID(rooms[0]))], reason: .diskFull) }.value
        for client in [teacher, ann, bob, carl] {
            let told = try await within("the stop") {
                try await client.event("recordingChanged") { ($0["event"] as? JSON)?["stopped"] != nil }
            }
            let stopped = told.event.object("stopped")
            #expect(stopped.string("reason") == "diskFull" && stopped.ints("locations") == [rooms[0]], "\(told)")
            #expect(ControlAPITests.locations(told.event["locations"]) == [rooms[1]] && told.event.bool("everyRoom") == false)
        }
        let state = await session.state
        #expect(state.recordedLocations == [.room(RoomID(rooms[1]))])
        #expect(state.recording.stopped == RecordingStop(locations: [.room(RoomID(rooms[0]))], reason: .diskFull))
        // The app's server sees it in the session's view.
        let view = try await api.session(id).object("recording")
        #expect(view.object("stopped").string("reason") == "diskFull" && view.object("stopped").ints("locations") == [rooms[0]], "\(view)")

        // Reported again (another writer of the same room): nothing more happens.
        let seq = await session.seq
        await session.recordingFailed([.room(RoomID(rooms[0]))], reason: .writeFailed)
        #expect(await session.seq == seq)

        // The session goes on: a chat in the stopped room, and a joiner's snapshot tells the stop.
        _ = try await ann.request("chat", ["text": "still here"])
        let chat = try await within("a chat after the stop") { try await bob.event("chatMessage") }
        #expect(chat.event.object("message").string("text") == "still here")
        let dana = try await server.joined("Dana")
        let recording = await dana.joinSnapshot["recording"] as? JSON ?? [:]
        #expect(recording.object("stopped").string("reason") == "diskFull", "\(recording)")
        await server.stop()
    }
}
