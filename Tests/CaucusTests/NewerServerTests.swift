import Caucus
import CaucusCore
import Foundation
import Testing

/// The SDK keeps working against a newer server (docs/protocol.md, "Versions"): an event of a
/// type it does not know is skipped, its `seq` counted as seen.
@Suite struct NewerServerTests {
    @Test func anEventTypeFromANewerServerIsSkippedAndTheSessionGoesOn() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", session: "Newer", role: .host)
        let ann = try await server.client("Ann", session: "Newer", url: proxy.url)
        // An event Ann does not receive takes the next number; a newer server could have sent
        // her one of a new type under it.
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        let skipped = try host.snapshot.seq
        #expect(try ann.snapshot.seq == skipped - 1)
        proxy.inject(text: #"{"seq":\#(skipped),"at":1795320217001,"event":{"type":"fromTheFuture","novelty":{"x":1}}}"#)
        try await host.session.chat.send("still here")
        try await ann.log.next("the message after it") { if case .chatMessage(let message, _) = $0, message.text == "still here" { true } else { nil } }
        #expect(try ann.snapshot.seq == skipped + 1)
        #expect(!ann.log.all.contains { if case .error = $0 { true } else { false } }, "\(ann.log.all)")
        #expect(ann.session.connectionState == .connected)
        await proxy.stop()
        await server.stop()
    }
}
