import CaucusCore
import Foundation
import Testing

/// A host token joins while the user who inherited the role broadcasts voice or listens in:
/// the join takes the role back and ends those, and is answered like any join (its decision's
/// last event is not the arrival).
@Suite(.serialized) struct HostReclaimTests {
    @Test(arguments: ["startVoiceBroadcast", "listenIn"])
    func aHostTokenJoinsWhileTheHeirBroadcastsOrListensIn(_ activity: String) async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        try await ada.request("createRooms", ["count": 1])
        try await ada.request("assign", ["users": [3], "room": 1])
        try await ada.request("transferHost", ["user": 2])
        _ = try await within("Bo is host") { try await bo.event("hostChanged") }
        try await bo.request(activity, activity == "listenIn" ? ["room": 1] : [:])

        let returning = try await server.joined("Ada again", role: .host)
        let (snapshot, returningUser) = (await returning.joinSnapshot, await returning.user)
        #expect(returningUser != nil && snapshot["hostID"] as? Int == returningUser, "the host token takes the role back: \(snapshot)")
        #expect(snapshot["voiceBroadcaster"] == nil, "nobody broadcasts: \(snapshot)")
        #expect((snapshot["listeners"] as? [any Sendable] ?? []).isEmpty, "nobody listens in: \(snapshot)")
        _ = try await within("Cy hears the new host arrive") { try await cy.event("userJoined") { (($0["event"] as? JSON)?["user"] as? JSON)?["name"] as? String == "Ada again" } }
        #expect(try await returning.request("getSnapshot")["snapshot"] != nil)
        await server.stop()
    }
}
