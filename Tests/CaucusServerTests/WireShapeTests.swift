import CaucusCore
import Foundation
import Testing

/// What reaches a client is the wire form of the session, never what only the server's log
/// keeps; and a role that grows brings its view. Raw JSON frames, as `docs/protocol.md` shows.
@Suite(.serialized) struct WireShapeTests {
    @Test func noFrameAClientReceivesCarriesAClaimOrThePassword() async throws {
        let password = "pw-\(UInt32.random(in: 100_000...999_999))"
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host, password: password)
        let bob = try await server.joined("Bob", password: password)
        // A second host claimant becomes a manager: its claim differs from its role.
        let cat = try await server.joined("Cat", role: .host, password: password)
        let joined = try await within("Bob hears Cat") { try await bob.event("userJoined") }
        let user = (joined["event"] as? JSON)?["user"] as? JSON
        #expect(user?["role"] as? String == "manager")
        try await ada.request("rename", ["user": 2, "name": "Robert"])
        try await bob.request("getSnapshot")
        try await cat.request("getSnapshot")
        for client in [ada, bob, cat] { try await client.request("ping") }
        var frames = 0
        for client in [ada, bob, cat] {
            for text in await client.texts {
                frames += 1
                #expect(!text.contains("\"claim\""), "a claim reached a client: \(text)")
                #expect(!text.contains(password), "the password reached a client: \(text)")
                #expect(!text.contains("\"isManager\":") || text.contains("managerChanged"), "a stored user shape: \(text)")
            }
        }
        #expect(frames >= 12)
        await server.stop()
    }

    /// `protocol` 1 or absent is spoken; any other version is refused with 1013, and the
    /// connection stays open for a join that speaks 1.
    @Test func aJoinOrResumeAskingForAnotherProtocolVersionIsRefused() async throws {
        let server = try await TestServer.start()
        let token = try server.token(session: "Class", role: .host)
        let client = try await TestClient.connect(to: server)
        for version in [0, 2, 99] {
            #expect(try await client.refused("join", ["session": "Class", "userName": "Ada", "token": token, "protocol": version]) == 1013)
        }
        #expect(try await client.refused("resume", ["secret": "1.1.x", "lastSeq": 0, "protocol": 2]) == 1013)
        let joined = try await client.request("join", ["session": "Class", "userName": "Ada", "token": token, "protocol": 1])
        #expect(joined["user"] as? Int == 1)
        let bob = try await server.joined("Bob")
        #expect(await bob.user == 2, "no protocol field means 1")
        await server.stop()
    }

    /// Written from `docs/protocol.md` alone: a new manager hears the pending help requests
    /// in a `roleView` event, without asking for a snapshot.
    @Test func aNewManagerHearsThePendingHelpRequestsWithoutAsking() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        try await ada.request("addToPreList", ["names": ["Red"]])
        try await ada.request("commit")
        try await ada.request("start")
        let status = try await within("Ann hears the start") {
            try await ann.event("statusChanged") { (($0["event"] as? JSON)?["breakout"] as? JSON).flatMap { ($0["phase"] as? JSON)?["status"] as? String } == "started" }
        }
        let rooms = ((status["event"] as? JSON)?["breakout"] as? JSON)?["rooms"] as? [JSON] ?? []
        try await ann.request("joinRoom", ["room": rooms.first?["id"] as? Int ?? 0])
        try await ann.request("requestHelp")
        try await ada.request("makeManager", ["user": 3])
        let view = try await within("Ben hears its view") { try await ben.event("roleView") }
        let body = view["event"] as? JSON
        #expect(body?["user"] as? Int == 3)
        #expect(body?["role"] as? String == "manager")
        let requests = body?["helpRequests"] as? [JSON] ?? []
        #expect(requests.count == 1)
        #expect(requests.first?["requesterName"] as? String == "Ann")
        // To Ben alone.
        try await ann.request("ping")
        #expect(await ann.keptEvents().allSatisfy { TestClient.type(of: $0) != "roleView" })
        await server.stop()
    }
}
