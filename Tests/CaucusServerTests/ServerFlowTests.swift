import CaucusCore
import Foundation
import Testing

typealias JSON = TestClient.JSON

/// The seed flows over real sockets.
@Suite(.serialized) struct ServerFlowTests {
    @Test func joinGivesASnapshotAndASecretAndOthersHearOfIt() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Ada", role: .host)
        let bob = try await server.joined("Bob")
        let joined = try await within("Ada hears Bob") { try await host.event("userJoined") }
        let user = (joined["event"] as? JSON)?["user"] as? JSON
        #expect(user?["name"] as? String == "Bob")
        #expect(await bob.secret?.isEmpty == false)
        let snapshot = try await bob.request("getSnapshot")["snapshot"] as? JSON
        #expect((snapshot?["users"] as? [any Sendable])?.count == 2)
        #expect(snapshot?["hostID"] as? Int == 1)
        await server.stop()
    }

    @Test func passwordNeededThenWrongThenRightOnTheSameConnection() async throws {
        let server = try await TestServer.start()
        _ = try await server.joined("Ada", role: .host, password: "s3cret")
        let bob = try await TestClient.connect(to: server)
        let token = try server.token(session: "Class")
        #expect(try await bob.refused("join", ["session": "Class", "userName": "Bob", "token": token]) == 2010)
        #expect(try await bob.refused("join", ["session": "Class", "userName": "Bob", "token": token, "password": "nope"]) == 2011)
        try await bob.join(session: "Class", userName: "Bob", token: token, password: "s3cret")
        #expect(await bob.user == 2)
        await server.stop()
    }

    @Test func theSeedBlogWalkthroughWithChatScopingHelpAndBroadcast() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        let cat = try await server.joined("Cat")
        try await host.request("addToPreList", ["names": ["Red", "Blue"]])
        #expect((try await host.request("getPreList")["preList"] as? [any Sendable])?.count == 2)
        #expect(try await ann.refused("getPreList") == 3001)
        try await host.request("commit")
        let committed = try await within("committed status") {
            try await ann.event("statusChanged") { (($0["event"] as? JSON)?["breakout"] as? JSON).flatMap { ($0["phase"] as? JSON)?["status"] as? String } == "committed" }
        }
        let rooms = ((committed["event"] as? JSON)?["breakout"] as? JSON)?["rooms"] as? [JSON] ?? []
        #expect(rooms.map { $0["name"] as? String } == ["Red", "Blue"])
        let (red, blue) = (rooms[0]["id"] as? Int ?? 0, rooms[1]["id"] as? Int ?? 0)
        try await host.request("start")
        #expect(try await ann.request("isStarted")["started"] as? Bool == true)
        // Participants choose their rooms.
        try await ann.request("joinRoom", ["room": red])
        try await ben.request("joinRoom", ["room": red])
        try await cat.request("joinRoom", ["room": blue])
        // Chat stays in its room.
        try await ann.request("chat", ["text": "hello red"])
        let heard = try await within("Ben hears Ann") { try await ben.event("chatMessage") }
        #expect(((heard["event"] as? JSON)?["message"] as? JSON)?["text"] as? String == "hello red")
        try await cat.request("chat", ["text": "hello blue"])
        try await ben.request("ping")
        #expect(await ben.keptEvents().allSatisfy { TestClient.type(of: $0) != "chatMessage" }, "blue's chat never reaches red")
        // Help: Cat asks, the host joins.
        try await cat.request("requestHelp")
        let help = try await within("host hears the help request") { try await host.event("helpRequested") }
        let request = ((help["event"] as? JSON)?["request"] as? JSON)
        #expect(request?["requesterName"] as? String == "Cat" && request?["roomName"] as? String == "Blue")
        try await host.request("answerHelp", ["request": request?["id"] as? Int ?? 0, "answer": "join"])
        let answer = try await within("Cat hears the answer") { try await cat.event("helpAnswered") }
        #expect((answer["event"] as? JSON)?["result"] as? String == "managerJoining")
        // Broadcast reaches every room.
        try await host.request("broadcast", ["text": "Two minutes"])
        for client in [ann, ben, cat] {
            let broadcast = try await within("broadcast") { try await client.event("broadcast") }
            #expect((broadcast["event"] as? JSON)?["text"] as? String == "Two minutes")
        }
        // Stop: everyone back.
        try await host.request("stop", ["countdownSeconds": 0])
        let stopped = try await within("stopped") {
            try await ben.event("statusChanged") { (($0["event"] as? JSON)?["breakout"] as? JSON).flatMap { ($0["phase"] as? JSON)?["status"] as? String } == "stopped" }
        }
        let after = ((stopped["event"] as? JSON)?["breakout"] as? JSON)?["rooms"] as? [JSON] ?? []
        #expect(after.allSatisfy { ($0["occupants"] as? [any Sendable])?.isEmpty == true })
        await server.stop()
    }

    @Test func aRefusedCommitReportsCommitFailedAndChangesNothing() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Ada", role: .host)
        let reply = try await host.reply(to: try await host.send("commit"))
        let error = reply["error"] as? JSON
        #expect(error?["code"] as? Int == 4006)
        #expect(error?["name"] as? String == "preListEmpty")
        #expect(error?["status"] as? String == "commitFailed")
        #expect(try await host.request("getCommittedList")["committed"] as? JSON != nil)
        await server.stop()
    }
}

@Suite(.serialized) struct LeavingTests {
    @Test func leavingIsAnsweredThenTheSocketClosesAndOthersHearIt() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Ada", role: .host)
        let bob = try await server.joined("Bob")
        let result = try await bob.request("leave")
        #expect(result["seq"] as? Int != nil)
        #expect(try await bob.closed() == 4005)
        let left = try await within("host hears") { try await host.event("userLeft") }
        #expect((left["event"] as? JSON)?["reason"] as? String == "left")
        // The host ends the session: everyone is told, then closed.
        let cy = try await server.joined("Cy")
        try await host.send("leave", ["endSession": true])
        _ = try await within("Cy hears the end") { try await cy.event("sessionEnded") }
        #expect(try await cy.closed() == 4002)
        await server.stop()
    }
}

@Suite(.serialized) struct ResumeBoundaryTests {
    @Test func aResumeNeverReplaysWhatCameBeforeTheUserJoined() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Ada", role: .host, password: "pw")
        try await host.request("chat", ["text": "before Bob"])
        let bob = try await TestClient.connect(to: server)
        try await bob.join(session: "Class", userName: "Bob", token: try server.token(session: "Class"), password: "pw")
        let secret = try #require(await bob.secret)
        await bob.close()
        _ = try await bob.closed()
        let back = try await TestClient.connect(to: server)
        let resumed = try await back.request("resume", ["secret": secret, "lastSeq": 0])
        try await back.request("ping")
        let types = await back.keptEvents().compactMap { TestClient.type(of: $0) }
        #expect(!types.contains("sessionStarted"), "the creator's session (and its password) stays private")
        #expect(!types.contains("chatMessage"), "nothing from before the join")
        #expect((resumed["replayingFrom"] as? Int ?? 0) > 3)
        await server.stop()
    }
}

@Suite(.serialized) struct SimultaneousJoinTests {
    /// However joins interleave (even both first joins of a new session, committed in one
    /// batch), each joiner learns of the other: in its snapshot or by a later event.
    @Test func simultaneousJoinersEachLearnOfTheOther() async throws {
        let server = try await TestServer.start()
        for round in 0..<20 {
            let session = "Race \(round)"
            async let first = server.joined("Ada", session: session, role: .host)
            async let second = server.joined("Bob", session: session)
            let (ada, bob) = try await (first, second)
            for (client, other) in [(ada, "Bob"), (bob, "Ada")] {
                // What the client knows: its join snapshot, then the events after it (roster
                // news may come a few milliseconds late, so wait for it if it is not there).
                let known = (await client.joinSnapshot["users"] as? [JSON] ?? []).compactMap { $0["name"] as? String }
                var joinedLater: [String] = []
                if !known.contains(other) {
                    let joined = try await within("\(other) joined") {
                        try await client.event("userJoined") { (($0["event"] as? JSON)?["user"] as? JSON)?["name"] as? String == other }
                    }
                    joinedLater.append(try #require((((joined["event"] as? JSON)?["user"] as? JSON)?["name"] as? String)))
                }
                // A command's reply comes after everything sent to the client before it, held or not.
                try await client.request("chat", ["text": "round \(round)"])
                joinedLater += await client.keptEvents().filter { TestClient.type(of: $0) == "userJoined" }
                    .compactMap { (($0["event"] as? JSON)?["user"] as? JSON)?["name"] as? String }
                #expect((known + joinedLater).filter { $0 == other }.count == 1, "round \(round): snapshot \(known), events \(joinedLater)")
            }
        }
        await server.stop()
    }
}
