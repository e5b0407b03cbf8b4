import CaucusCore
import Foundation
import Testing
@testable import CaucusServer

/// `muteUser` over the real WebSocket: the host mutes a publisher and a listener's slot map
/// drops it at once, after the `mediaChanged` (with `by`) that explains it; the refusals.
@Suite(.serialized) struct MuteUserWireTests {
    @Test func theHostMutesAPublisherAndAListenersSlotMapDropsIt() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        let (adaID, cyID) = (try #require(await ada.user), try #require(await cy.user))
        try await bo.request("mediaOffer", ["sdp": MediaRoutingOrderTests.offer(ssrc: 0xB0)])
        try await cy.request("mediaOffer", ["sdp": MediaRoutingOrderTests.offer(ssrc: 0xC0)])
        try await cy.request("publish", ["media": ["audio"]])
        _ = try await within("Bo hearing Cy") {
            try await MediaRoutingOrderTests.events(before: { MediaRoutingOrderTests.slots(in: $0)?.first?["user"] as? Int == cyID }, on: bo)
        }

        try await ada.request("muteUser", ["user": cyID, "media": ["audio"]])
        let beforeEmptied = try await within("Bo's slot emptied") {
            try await MediaRoutingOrderTests.events(
                before: { MediaRoutingOrderTests.slots(in: $0).map { $0.first?["user"] == nil } ?? false }, on: bo)
        }
        #expect(beforeEmptied.contains("mediaChanged"), "the slot map came before the mute that explains it: \(beforeEmptied)")
        // Cy itself is told, with who muted it; its state no longer publishes audio.
        let told = try await cy.event("mediaChanged") { ($0["event"] as? JSON)?["by"] != nil }
        let event = try #require(told["event"] as? JSON)
        #expect(event["user"] as? Int == cyID)
        #expect(event["by"] as? Int == adaID)
        #expect((event["publishing"] as? [any Sendable])?.isEmpty == true)

        // Only Cy turns it on again; then Bo hears Cy once more.
        try await cy.request("publish", ["media": ["audio"]])
        _ = try await within("Bo hearing Cy again") {
            try await MediaRoutingOrderTests.events(before: { MediaRoutingOrderTests.slots(in: $0)?.first?["user"] as? Int == cyID }, on: bo)
        }
        await server.stop()
    }

    @Test func refusalsHaveTheirCodes() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        let (adaID, boID, cyID) = (try #require(await ada.user), try #require(await bo.user), try #require(await cy.user))
        try await cy.request("publish", ["media": ["audio", "video"]])
        try await ada.request("publish", ["media": ["audio"]])
        #expect(try await bo.refused("muteUser", ["user": cyID, "media": ["audio"]]) == 3001)
        #expect(try await ada.refused("muteUser", ["user": 999, "media": ["audio"]]) == 3002)
        #expect(try await ada.refused("muteUser", ["user": adaID, "media": ["audio"]]) == 2021)
        #expect(try await ada.refused("muteUser", ["user": boID, "media": ["audio"]]) == 2020)
        #expect(try await ada.refused("muteUser", ["user": cyID, "media": [String]()]) == 1004)
        #expect(try await ada.refused("muteUser", ["user": cyID]) == 1004)
        try await ada.request("makeManager", ["user": boID])
        #expect(try await bo.refused("muteUser", ["user": adaID, "media": ["audio"]]) == 2019)
        try await bo.request("muteUser", ["user": cyID, "media": ["video"]])
        await server.stop()
    }
}
