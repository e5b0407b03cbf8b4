import CaucusCore
import CaucusProtocol
import Foundation
import Testing

/// The wire forms of renaming rooms and taking people out of the plan: each request decodes to
/// its command, a missing argument is named, and `roomRenamed` is the documented object and
/// round-trips.
@Suite struct RoomEditWireTests {
    static func request(_ text: String) throws(FrameError) -> Request {
        try ClientFrame.decode(Data(text.utf8)).request
    }

    @Test func theRequestsDecodeToTheirCommands() throws {
        #expect(try Self.request(#"{"id":1,"op":"renamePlannedRoom","name":"Red","newName":"Crimson"}"#) == .command(.renamePlannedRoom("Red", to: "Crimson")))
        #expect(try Self.request(#"{"id":2,"op":"unassign","users":[3,4]}"#) == .command(.unassign([UserID(3), UserID(4)])))
        #expect(try Self.request(#"{"id":3,"op":"renameRoom","room":2,"newName":"Green"}"#) == .command(.renameRoom(RoomID(2), to: "Green")))
    }

    @Test(arguments: [
        (#"{"id":1,"op":"renamePlannedRoom","name":"Red"}"#, "Missing \"newName\"."),
        (#"{"id":1,"op":"renamePlannedRoom","newName":"Red"}"#, "Missing \"name\"."),
        (#"{"id":1,"op":"renameRoom","room":2}"#, "Missing \"newName\"."),
        (#"{"id":1,"op":"renameRoom","newName":"Green"}"#, "Missing \"room\"."),
        (#"{"id":1,"op":"unassign"}"#, "Missing \"users\"."),
        (#"{"id":1,"op":"renameRoom","room":"2","newName":"Green"}"#, "\"room\" must be an integer (a whole number that fits in 64 bits)."),
    ])
    func aMissingOrMistypedArgumentIsNamed(_ text: String, _ message: String) {
        do throws(FrameError) {
            _ = try Self.request(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.id == 1)
            #expect(error.error.code == .invalidArguments)
            #expect(error.error.message == message)
        }
    }

    @Test func roomRenamedIsTheDocumentedObjectAndRoundTrips() throws {
        let event = Event.roomRenamed(RoomID(7), name: "Green")
        let data = try JSONEncoder().encode(WireEvent(event))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object.count == 3)
        #expect(object["type"] as? String == "roomRenamed")
        #expect(object["room"] as? Int == 7)
        #expect(object["name"] as? String == "Green")
        #expect(try JSONDecoder().decode(WireEvent.self, from: data).event == event)
        #expect(try JSONDecoder().decode(Event.self, from: JSONEncoder().encode(event)) == event)
    }
}
