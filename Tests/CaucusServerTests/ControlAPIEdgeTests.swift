import CaucusCore
import Foundation
import Testing

/// Refusals that Hummingbird itself would make still answer in the API's JSON error form.
@Suite(.serialized) struct ControlAPIEdgeTests {
    @Test func unknownRoutesOversizeBodiesAndBadQueriesAnswerWithJSONErrors() async throws {
        let server = try await TestServer.start(maxFrameBytes: 4096)
        _ = try await server.joined("Ada", role: .host)
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let unknown = try await api.send("GET", "/v1/nowhere")
        #expect(unknown.status == 404)
        #expect(unknown.json.object("error").int("code") == 1012, "\(unknown.body)")
        for (method, path) in [("PUT", "/v1/sessions"), ("GET", "/v1/sessions/\(id)/operations")] {
            let reply = try await api.send(method, path)
            #expect(reply.status == 405, "\(method) \(path)")
            #expect(reply.json.object("error").int("code") == 1014, "\(method) \(path): \(reply.body)")
        }
        let huge = #"{"op":"broadcast","text":"\#(String(repeating: "x", count: 10_000))"}"#
        let tooLarge = try await api.send("POST", "/v1/sessions/\(id)/operations", body: huge)
        #expect(tooLarge.status == 413)
        #expect(tooLarge.json.object("error").int("code") == 1003)
        let badLimit = try await api.send("GET", "/v1/history?limit=abc")
        #expect(badLimit.status == 400)
        #expect(badLimit.json.object("error").int("code") == 1004)
        let lowercase = try await ControlAPI.raw(
            port: server.port, "GET", "/v1/sessions",
            headers: ["Authorization": "basic " + Data("\(server.app.key):\(server.app.secret)".utf8).base64EncodedString()])
        #expect(lowercase.status == 200, "the scheme name is case-insensitive")
        await server.stop()
    }
}
