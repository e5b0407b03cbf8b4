import CaucusCore
import CaucusMedia
import Foundation
import Testing
@testable import CaucusServer

/// Issue 23, item 2, at the wire: routing follows the events that explain it, and only events
/// that change who may receive what cause a recomputation.
@Suite(.serialized) struct MediaRoutingOrderTests {
    /// An offer that publishes audio under `ssrc` and receives one audio slot (mid 0).
    static func offer(ssrc: UInt32) -> String {
        MediaSignallingTests.offer.replacingOccurrences(of: "a=sendonly", with: "a=sendrecv")
            .replacingOccurrences(of: "a=rtpmap:111 opus/48000/2\r\n", with: "a=rtpmap:111 opus/48000/2\r\na=ssrc:\(ssrc) cname:x\r\n")
    }

    static func slots(in frame: JSON) -> [JSON]? { (frame["media"] as? JSON)?["slots"] as? [JSON] }

    /// Reads `client`'s frames until one matches, returning the types of the events before it.
    static func events(before matching: (JSON) -> Bool, on client: TestClient) async throws -> [String] {
        var types: [String] = []
        while let frame = try await client.nextFrame() {
            if matching(frame) { return types }
            if let type = TestClient.type(of: frame) { types.append(type) }
        }
        throw TestFailure("the connection closed first")
    }

    /// Bo hears Cy in the main session; the host moves Bo into a room of its own: Bo's slot map
    /// empties, and Bo has the `usersMoved` event first (before, the map went out as the move
    /// was decided, before it was stored and sent).
    @Test func theSlotMapFollowsTheMoveThatExplainsIt() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        let (boID, cyID) = (try #require(await bo.user), try #require(await cy.user))
        try await bo.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xB0)])
        try await cy.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xC0)])
        try await cy.request("publish", ["media": ["audio"]])
        let beforePublishing = try await within("Bo hearing Cy") {
            try await Self.events(before: { Self.slots(in: $0)?.first?["user"] as? Int == cyID }, on: bo)
        }
        #expect(beforePublishing.last == "mediaChanged", "the publication came before the map naming Cy: \(beforePublishing)")

        try await ada.request("createRooms", ["count": 1])
        let status = try await ada.event("statusChanged")
        let room = try #require((((status["event"] as? JSON)?["breakout"] as? JSON)?["rooms"] as? [JSON])?.first?["id"] as? Int)
        try await ada.request("assign", ["users": [boID], "room": room])
        let beforeEmptied = try await within("Bo's slot emptied") {
            try await Self.events(before: { Self.slots(in: $0).map { $0.first?["user"] == nil } ?? false }, on: bo)
        }
        #expect(beforeEmptied.contains("usersMoved"), "the slot map came before the move that explains it: \(beforeEmptied)")
        await server.stop()
    }

    /// A breakout's start moves everyone at once: the media loop switches forwarding before the
    /// `statusChanged` event is even queued, and holds the slot maps until it is. Eight users
    /// with one audio slot each; user 0 (Red) and user 7 (Blue) publish. In the main session
    /// user 0 hears 7 and everyone else hears 0; after the start users 4–6 hear 7, users 0 and 7
    /// hear nobody, users 1–3 still hear 0. Every one of the five whose slot changes has the
    /// started status before the slot map that changes it; also when the start is recomputed
    /// in slices of one user (`mediaRoutingSlice`), the slices running between reads.
    @Test(arguments: [ServerConfiguration().mediaRoutingSlice, 1])
    func aStartsSlotMapsFollowTheStatusThatExplainsThem(routingSlice: Int) async throws {
        let server = try await TestServer.start { $0.mediaRoutingSlice = routingSlice }
        let ada = try await server.joined("Ada", role: .host)
        var users: [TestClient] = []
        for index in 0..<8 {
            let user = try await server.joined("User \(index)")
            try await user.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xA0 + UInt32(index))])
            users.append(user)
        }
        var ids: [Int] = []
        for user in users { ids.append(try #require(await user.user)) }
        try await users[0].request("publish", ["media": ["audio"]])
        try await users[7].request("publish", ["media": ["audio"]])
        for (index, user) in users.enumerated() {
            let expected = index == 0 ? ids[7] : ids[0]
            try await within("user \(index) hearing \(expected) in the main session") {
                if let kept = await user.keptEvents().last(where: { Self.slots(in: $0) != nil }),
                    Self.slots(in: kept)?.first?["user"] as? Int == expected
                {
                    return
                }
                _ = try await Self.events(before: { Self.slots(in: $0)?.first?["user"] as? Int == expected }, on: user)
            }
        }
        try await ada.request("addToPreList", ["names": ["Red", "Blue"]])
        try await ada.request("preAssign", ["users": Array(ids[0..<4]), "name": "Red"])
        try await ada.request("preAssign", ["users": Array(ids[4..<8]), "name": "Blue"])
        try await ada.request("commit")
        try await ada.request("start")

        for (index, user) in users.enumerated() where [0, 4, 5, 6, 7].contains(index) {
            let after: Int? = (4...6).contains(index) ? ids[7] : nil
            let typesBefore = try await within("user \(index)'s slot after the start") {
                try await Self.events(before: { frame in Self.slots(in: frame).map { ($0.first?["user"] as? Int) == after } ?? false }, on: user)
            }
            let started = typesBefore.contains("statusChanged")
            #expect(started, "user \(index)'s slot map came before the start that explains it: \(typesBefore)")
        }
        await server.stop()
    }

    /// Roster news is held for a while (the roster window) and sent in one write; when a held
    /// event explains a slot map (a publisher whose connection dropped is reconnecting), it goes
    /// out before the map instead.
    @Test func heldRosterNewsGoesOutBeforeTheSlotMapItExplains() async throws {
        let server = try await TestServer.start(rosterWindow: .seconds(5))
        _ = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        let cyID = try #require(await cy.user)
        try await bo.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xB0)])
        try await cy.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xC0)])
        try await cy.request("publish", ["media": ["audio"]])
        _ = try await within("Bo hearing Cy") {
            try await Self.events(before: { Self.slots(in: $0)?.first?["user"] as? Int == cyID }, on: bo)
        }
        await cy.close()
        let beforeEmptied = try await within("Bo's slot emptied") {
            try await Self.events(before: { Self.slots(in: $0).map { $0.first?["user"] == nil } ?? false }, on: bo)
        }
        #expect(beforeEmptied.contains("userReconnecting"), "the slot map came before the news that explains it: \(beforeEmptied)")
        await server.stop()
    }

    /// Chat (to the room, to one user) and a rename change nobody's media: the session hands the media loop
    /// nothing and the router recomputes nothing (before, every batch of events did).
    @Test func chatCausesNoRecomputation() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        try await bo.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xB0)])
        try await cy.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xC0)])
        try await cy.request("publish", ["media": ["audio"]])
        let cyID = try #require(await cy.user)
        _ = try await within("Bo hearing Cy") {
            try await Self.events(before: { Self.slots(in: $0)?.first?["user"] as? Int == cyID }, on: bo)
        }
        let key = try await MediaSignallingTests.key(of: bo, on: server)
        let media = server.server.media
        let before = try #require(await media.routingRecomputations(of: key.session))

        let boID = try #require(await bo.user)
        try await bo.request("chat", ["text": "hello"])
        try await ada.request("chat", ["text": "psst", "to": boID])
        try await ada.request("rename", ["user": cyID, "name": "Cyd"])
        // The media loop has run whatever the session handed it once a later handover is done:
        // a publication (which does change routing) is recomputed after them.
        try await bo.request("publish", ["media": ["audio"]])
        _ = try await within("Cy hearing Bo") {
            try await Self.events(before: { Self.slots(in: $0)?.first?["user"] as? Int == boID }, on: cy)
        }
        let after = try #require(await media.routingRecomputations(of: key.session))
        #expect(after - before == 1, "only the publication was recomputed: \(after - before)")
        await server.stop()
    }
    /// Each routing update's hold on the media loop is timed in `/metrics`, in millisecond
    /// buckets (the default ones start at 5 ms, too coarse for a pause in forwarding).
    @Test func routingUpdatesAreTimedInMilliseconds() async throws {
        let server = try await TestServer.start()
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        let name = "caucus_media_routing_update_duration_seconds"
        // The process's metrics are shared by every server a test starts: count what this adds.
        let count = { (text: String) in
            text.split(separator: "\n").first { $0.hasPrefix(name + "_count ") }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0
        }
        try await bo.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xB0)])
        try await cy.request("mediaOffer", ["sdp": Self.offer(ssrc: 0xC0)])
        let before = count(try await HTTP.get(server, "/metrics").body)
        try await cy.request("publish", ["media": ["audio"]])
        let cyID = try #require(await cy.user)
        _ = try await within("Bo hearing Cy") {
            try await Self.events(before: { Self.slots(in: $0)?.first?["user"] as? Int == cyID }, on: bo)
        }
        let text = try await HTTP.get(server, "/metrics").body
        #expect(text.contains("# TYPE \(name) histogram\n"))
        #expect(count(text) > before, "the publication's update was timed")
        #expect(text.contains(#"\#(name)_bucket{le="0.001"}"#), "a 1 ms bucket")
        await server.stop()
    }
}
