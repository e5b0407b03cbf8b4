import CaucusAuth
import Foundation
import Testing

/// An app may have so many live sessions at once (issue 26, item 7): a join that would open
/// one more is refused with 2016 `tooManySessions`; joining a live one, or opening one once
/// another ended, still works.
@Suite(.serialized) struct SessionsPerAppTests {
    @Test func aJoinBeyondTheAppsSessionLimitIsRefusedWithACode() async throws {
        let server = try await TestServer.start(maxSessions: 2)
        let first = try await server.joined("Ann", session: "One", role: .host)
        _ = try await server.joined("Bob", session: "Two", role: .host)
        let third = try await TestClient.connect(to: server)
        let refusal = try await third.reply(
            to: try await third.send("join", ["session": "Three", "userName": "Cy", "token": try server.token(session: "Three")]))
        let error = try #require(refusal["error"] as? TestClient.JSON, "\(refusal)")
        #expect(error["code"] as? Int == 2016)
        #expect(error["name"] as? String == "tooManySessions")
        #expect((error["message"] as? String)?.contains("2 live sessions") == true, "\(error)")
        // A live session still takes joins; and once one ends, another may open.
        _ = try await server.joined("Dee", session: "Two")
        try await first.request("leave", ["endSession": true])
        try await third.join(session: "Three", userName: "Cy", token: try server.token(session: "Three"))
        await server.stop()
    }

    @Test func theLimitComesFromTheAppsFileWithADefault() throws {
        let named = try JSONDecoder().decode(AppCredentials.self, from: Data(#"{"key":"k","secret":"s","maxSessions":5}"#.utf8))
        #expect(named.maxSessions == 5)
        let unnamed = try JSONDecoder().decode(AppCredentials.self, from: Data(#"{"key":"k","secret":"s"}"#.utf8))
        #expect(unnamed.maxSessions == AppCredentials.standardMaxSessions)
        #expect(AppCredentials.standardMaxSessions == 1_000)
    }
}
