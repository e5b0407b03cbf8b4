@testable import CaucusServer
import CaucusCore
import Foundation
import Testing

/// When the store fails, clients hear a fixed message in the protocol's words; the store's own
/// error text stays in the server's log.
@Suite(.serialized) struct InternalErrorTextTests {
    static let fixed = "The server could not complete the request; nothing changed. Try again later."

    @Test func aFailedStoreIsReportedWithAFixedMessage() async throws {
        let server = try await TestServer.start()
        let api = ControlAPI(server)
        try await server.server.store.close()

        let client = try await TestClient.connect(to: server)
        let id = try await client.send("join", ["session": "S", "userName": "Ann", "token": try server.token(session: "S")])
        let reply = try await client.reply(to: id)
        let error = try #require(reply["error"] as? JSON, "the join was not refused: \(reply)")
        #expect(error.int("code") == 1010)
        #expect(error.string("message") == Self.fixed, "\(error)")

        let history = try await api.send("GET", "/v1/history")
        #expect(history.status == 500)
        #expect(history.errorCode == 1010, "\(history.body)")
        #expect(history.error.string("message") == Self.fixed, "\(history.body)")
        await server.stop()
    }
}
