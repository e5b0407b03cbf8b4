import CaucusCore
import Foundation
import Testing

/// A first join that is refused creates no session: nothing live, nothing in the history.
@Suite(.serialized) struct RefusedFirstJoinTests {
    @Test func aRefusedFirstJoinLeavesNoSessionInTheHistory() async throws {
        let server = try await TestServer.start()
        let api = ControlAPI(server)
        let client = try await TestClient.connect(to: server)
        let refusals: [(arguments: JSON, code: Int)] = [
            (["session": "Ghost", "userName": "", "token": try server.token(session: "Ghost")], 2003),
            (["session": "Ghost", "userName": "   ", "token": try server.token(session: "Ghost")], 2003),
        ]
        for refusal in refusals {
            #expect(try await client.refused("join", refusal.arguments) == refusal.code)
        }
        #expect(try await api.sessions().isEmpty)
        let history = try await api.send("GET", "/v1/history")
        #expect(history.status == 200)
        #expect(history.json.objects("sessions").isEmpty, "a session no one joined is in the history: \(history.body)")
        // The name is free, and the next join makes one session, which is in the history.
        try await client.join(session: "Ghost", userName: "Ann", token: try server.token(session: "Ghost"))
        #expect(try await api.send("GET", "/v1/history").json.objects("sessions").map { $0.string("name") } == ["Ghost"])
        await server.stop()
    }
}
