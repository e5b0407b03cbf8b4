import Foundation
import Testing

/// A request whose method the server does not know is answered and its socket closed; before,
/// the parser's error went unanswered and the connection stayed open (issue 26, item 2).
@Suite(.serialized) struct UnreadableRequestTests {
    @Test func anUnknownMethodIsAnswered501AndClosed() async throws {
        let server = try await TestServer.start()
        for method in ["BREW", "FOO", "get", "Post"] {
            // `RawHTTP.send` reads until the server closes: it returns only if the socket is closed.
            let reply = try await RawHTTP.send(port: server.port, method, "/v1/sessions")
            #expect(reply.status == 501, "\(method)")
            #expect(reply.header("connection") == "close", "\(method)")
        }
        // The server still serves: the refusal was that socket's only.
        #expect(try await RawHTTP.send(port: server.port, "GET", "/console/").status == 200)
        await server.stop()
    }

    @Test func aKnownMethodOnAPathThatDoesNotTakeItIs405WithAllow() async throws {
        let server = try await TestServer.start()
        let reply = try await RawHTTP.send(port: server.port, "PROPFIND", "/v1/sessions")
        #expect(reply.status == 405, "\(reply.status) \(reply.body)")
        #expect(reply.header("allow") == "GET")
        await server.stop()
    }

    @Test func aRequestLineThatIsNotHTTPIsAnswered400AndClosed() async throws {
        let server = try await TestServer.start()
        let reply = try await RawHTTP.send(port: server.port, "GET", "/ x y")
        #expect(reply.status == 400, "\(reply.status)")
        await server.stop()
    }
}
