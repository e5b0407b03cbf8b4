import CaucusCore
import Foundation
import Testing

@Suite(.serialized) struct ReconnectTests {
    static func status(_ frame: JSON) -> String? {
        (((frame["event"] as? JSON)?["breakout"] as? JSON)?["phase"] as? JSON)?["status"] as? String
    }

    @Test func aSocketDroppedMidBreakoutResumesIntoTheSameRoomWithEveryMissedMessage() async throws {
        let server = try await TestServer.start()
        let host = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        try await host.request("addToPreList", ["names": ["Red"]])
        try await host.request("commit")
        try await host.request("start")
        let red = try #require((((try await host.request("getCommittedList"))["committed"] as? JSON)?["rooms"] as? [JSON])?.first?["id"] as? Int)
        try await ann.request("joinRoom", ["room": red])
        try await ben.request("joinRoom", ["room": red])
        let secret = try #require(await ben.secret)
        // Ben's socket drops.
        try await ben.request("ping")
        let lastSeen = await ben.lastSeq
        await ben.close()
        _ = try await ben.closed()
        _ = try await within("Ben reconnecting") { try await ann.event("userReconnecting") }
        // Ann keeps talking in the room.
        for index in 1...5 { try await ann.request("chat", ["text": "missed \(index)"]) }
        // Ben comes back on a new socket.
        let back = try await TestClient.connect(to: server)
        let resumed = try await back.request("resume", ["secret": secret, "lastSeq": lastSeen])
        #expect(resumed["user"] as? Int == 3)
        #expect(resumed["replayingFrom"] as? Int == lastSeen + 1)
        var texts: [String] = []
        for _ in 1...5 {
            let message = try await within("replayed chat") { try await back.event("chatMessage") }
            texts.append(((message["event"] as? JSON)?["message"] as? JSON)?["text"] as? String ?? "")
        }
        #expect(texts == (1...5).map { "missed \($0)" }, "every missed message, in order")
        let snapshot = try await back.request("getSnapshot")["snapshot"] as? JSON
        let me = (snapshot?["users"] as? [JSON])?.first { $0["id"] as? Int == 3 }
        #expect(me?["location"] as? Int == red, "back in the same room")
        #expect((me?["presence"] as? JSON)?["connected"] as? Bool == true)
        // And live again: Ann's next message reaches Ben.
        try await ann.request("chat", ["text": "welcome back"])
        let live = try await within("live chat") { try await back.event("chatMessage") }
        #expect(((live["event"] as? JSON)?["message"] as? JSON)?["text"] as? String == "welcome back")
        await server.stop()
    }

    /// The standard grace, in full: a seat is held 30 s after its socket drops (a resume 1.5 s
    /// before the end takes it back), and no longer. The server's clock is moved forward by the
    /// test (`SkippingClock`): the session's timer waits on it, so the 30 s take no real time.
    /// Each skip lands 1.5 s before the end the server announced, whatever time the steps before
    /// it took: a slow machine has those 1.5 s for one request.
    @Test func theStandardGraceHoldsASeatThirtySecondsAndNoLonger() async throws {
        #expect(SessionLimits.standard.reconnectGraceSeconds == 30)
        let clock = SkippingClock()
        let server = try await TestServer.start(clock: clock.serverClock)
        let host = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let secret = try #require(await ann.secret)
        await ann.close()
        _ = try await ann.closed()
        let first = try Self.held(try await within("Ann reconnecting") { try await host.event("userReconnecting") })
        #expect(first.until - first.since == 30_000, "the seat is held until 30 s after the drop")

        let back = try await TestClient.connect(to: server)
        clock.skip(to: Instant(milliseconds: first.until - 1_500))
        // Time for a timer wrongly due by now to fire (a wait looks at the clock every 10 ms).
        try await Task.sleep(for: .milliseconds(50))
        let resumed = try await back.request("resume", ["secret": secret, "lastSeq": 0])
        #expect(resumed["user"] as? Int == 2, "the seat was still held 1.5 s before the end: \(resumed)")
        _ = try await within("Ann resumed") { try await host.event("userResumed") }

        try await back.request("ping")
        await back.close()
        _ = try await back.closed()
        let second = try Self.held(try await within("Ann reconnecting again") { try await host.event("userReconnecting") })
        #expect(second.until - second.since == 30_000)
        clock.skip(to: Instant(milliseconds: second.until - 1_500))
        try await Task.sleep(for: .milliseconds(50))
        try await host.request("chat", ["text": "still held"])
        #expect(await host.keptEvents().filter { TestClient.type(of: $0) == "userLeft" }.isEmpty, "held until 1.5 s before the end")
        clock.skip(to: Instant(milliseconds: second.until))
        let left = try await within("the grace runs out") { try await host.event("userLeft") }
        #expect((left["event"] as? JSON)?["reason"] as? String == "timedOut")
        let leftAt = Int64(try #require(left["at"] as? Int))
        #expect(leftAt >= second.until && leftAt - second.until < 1_000, "left at \(leftAt), held until \(second.until)")
        await server.stop()
    }

    /// A `userReconnecting` frame's time and the end of its seat's grace, in Unix ms.
    static func held(_ frame: JSON) throws -> (since: Int64, until: Int64) {
        let since = try #require(frame["at"] as? Int, "\(frame)")
        let until = try #require((frame["event"] as? JSON)?["until"] as? Int, "\(frame)")
        return (Int64(since), Int64(until))
    }

    @Test func aBadOrExpiredResumeSecretIsRefused() async throws {
        var limits = SessionLimits.standard
        limits.reconnectGraceSeconds = 1
        let server = try await TestServer.start(limits: limits)
        let host = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let secret = try #require(await ann.secret)
        let stranger = try await TestClient.connect(to: server)
        #expect(try await stranger.refused("resume", ["secret": secret + "x", "lastSeq": 0]) == 1007)
        #expect(try await stranger.refused("resume", ["secret": "1.2.AAAA", "lastSeq": 0]) == 1007)
        await ann.close()
        _ = try await ann.closed()
        let left = try await within(seconds: 15, "grace expires") { try await host.event("userLeft") }
        #expect((left["event"] as? JSON)?["reason"] as? String == "timedOut")
        #expect(try await stranger.refused("resume", ["secret": secret, "lastSeq": 0]) == 1007)
        await server.stop()
    }

    @Test func aResumeOnANewSocketReplacesTheOldOne() async throws {
        let server = try await TestServer.start()
        _ = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let secret = try #require(await ann.secret)
        let second = try await TestClient.connect(to: server)
        try await second.request("resume", ["secret": secret, "lastSeq": await ann.lastSeq])
        #expect(try await ann.closed() == 4004)
        try await second.request("chat", ["text": "still me"])
        await server.stop()
    }
}
