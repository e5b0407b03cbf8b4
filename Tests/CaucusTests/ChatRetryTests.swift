import Caucus
import CaucusCore
import Testing

/// A call that fails with `connectionLost` may still have taken effect: the server applied it,
/// and its answer went with the connection. A chat sent again under the same `requestKey`
/// is then applied once; the key given to another message is refused, and a malformed key
/// sends nothing. A real server, a real TCP proxy that loses the answer and then drops the
/// connection.
@Suite(.serialized) struct ChatRetryTests {
    @Test func aChatRetriedUnderItsKeyAfterConnectionLostIsDeliveredOnce() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let ben = try await server.client("Ben", session: "Retry")
        let ann = try await server.client("Ann", session: "Retry", url: proxy.url)
        let key = "0c8f1f52-3f1e-4c1b-9d7e-2a4b6f0e9a11"

        // The server takes the message (Ben hears it), but its answer to Ann is lost, and then
        // her connection: the call fails with connectionLost, its outcome unknown to her.
        proxy.dropNextServerFrame(containing: #""result":{"seq":"#)
        let sending = Task { () async -> Result<Void, SessionError> in
            do throws(SessionError) {
                try await ann.session.chat.send("only once", requestKey: key)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try await ben.log.next("the message at Ben") { SeedWalkthroughTests.chat($0) == "only once" ? true : nil }
        proxy.cut()
        let outcome = await sending.value
        guard case .failure(.connectionLost) = outcome else {
            Issue.record("the send ended \(outcome), not with connectionLost")
            return
        }
        try await ann.log.next("Ann connected again") { $0.isConnectionState(.connected) ? true : nil }

        // Sent again under its key: answered as the first was, applied once.
        try await ann.session.chat.send("only once", requestKey: key)
        try await ann.session.chat.send("the next one", requestKey: "ann-2")
        try await ben.log.next("the next message at Ben") { SeedWalkthroughTests.chat($0) == "the next one" ? true : nil }
        #expect(ben.log.values(SeedWalkthroughTests.chat) == ["only once", "the next one"])
        #expect(ann.log.values(SeedWalkthroughTests.chat) == ["only once", "the next one"])

        // The key given to another message is refused, and nothing is sent.
        do {
            try await ann.session.chat.send("something else", requestKey: key)
            Issue.record("another message under a used key was taken")
        } catch {
            guard case .refused(let refusal) = error else { throw error }
            #expect(refusal.errorCode == .requestKeyReused, "\(refusal)")
            #expect(refusal.message.contains("a new command needs a new key"), "\(refusal.message)")
        }
        // A malformed key: refused, saying why, and nothing is sent.
        do {
            try await ann.session.chat.send("with a bad key", requestKey: String(repeating: "k", count: 65))
            Issue.record("a 65-character key was taken")
        } catch {
            guard case .refused(let refusal) = error else { throw error }
            #expect(refusal.errorCode == .invalidArguments, "\(refusal)")
            #expect(refusal.message.contains("at most 64"), "\(refusal.message)")
        }
        try await ben.session.chat.send("the end")
        try await ann.log.next("the last message at Ann") { SeedWalkthroughTests.chat($0) == "the end" ? true : nil }
        #expect(ben.log.values(SeedWalkthroughTests.chat) == ["only once", "the next one", "the end"])

        try await ann.session.leave()
        try await ben.session.leave()
        await proxy.stop()
        await server.stop()
    }
}
