import CaucusCore
import Foundation
import Testing

/// A resume replays as far back as the documented window (10,000 events), under flow
/// control; before, a replay of 1,024 or more frames overflowed the outbound bound and the
/// resuming client was cut off as slow before its reply was out (issue 26, item 1).
@Suite(.serialized) struct ReplayResumeTests {
    /// Seats held long enough for the events below to be made.
    static let limits = SessionLimits(reconnectGraceSeconds: 600)

    @Test func aResumeOfTenThousandMissedEventsSucceeds() async throws {
        let server = try await TestServer.start(limits: Self.limits)
        let host = try await server.joined("Teacher", role: .host)
        let ben = try await server.joined("Ben")
        let me = try #require(await host.user)
        let secret = try #require(await ben.secret)
        try await ben.request("ping")
        let lastSeen = await ben.lastSeq
        await ben.close()
        _ = try await ben.closed()
        _ = try await within("Ben reconnecting") { try await host.event("userReconnecting") }
        // The host renames itself until Ben has missed exactly the window's 10,000 events.
        let target = lastSeen + 10_000
        var renames = 0
        while await host.lastSeq < target {
            let batch = min(500, target - (await host.lastSeq))
            var ids: [Int] = []
            for _ in 0..<batch {
                renames += 1
                ids.append(try await host.send("rename", ["user": me, "name": "Teacher \(renames)"]))
            }
            for id in ids { _ = try await host.reply(to: id) }
        }
        #expect(await host.lastSeq == target)

        let back = try await TestClient.connect(to: server)
        let resumed = try await back.request("resume", ["secret": secret, "lastSeq": lastSeen])
        #expect(resumed["replayingFrom"] as? Int == lastSeen + 1, "a replay, not a snapshot: \(resumed.keys)")
        var seqs: [Int] = []
        while seqs.last ?? lastSeen < target {
            guard let frame = try await back.nextFrame() else {
                let code = await back.closeCode
                throw TestFailure("closed (\(String(describing: code))) after \(seqs.count) replayed events")
            }
            if let seq = frame["seq"] as? Int { seqs.append(seq) }
        }
        #expect(seqs.count >= 9_999 && seqs == seqs.sorted() && Set(seqs).count == seqs.count, "\(seqs.count) events")
        #expect(seqs.last == target)
        // Live again after the replay.
        try await host.request("chat", ["text": "caught up"])
        let live = try await within("live chat") { try await back.event("chatMessage") }
        #expect(((live["event"] as? JSON)?["message"] as? JSON)?["text"] as? String == "caught up")
        await server.stop()
    }

    @Test func aClientCutOffAsSlowResumesWithEverythingItMissed() async throws {
        let server = try await TestServer.start(limits: Self.limits)
        let host = try await server.joined("Teacher", role: .host)
        // The slow one joins on a bare socket, reads its join reply, then never reads again.
        let slow = try RawWebSocket(port: server.port)
        try slow.sendText(#"{"id":1,"op":"join","session":"Class","userName":"Sloth","token":"\#(try server.token(session: "Class"))"}"#)
        let joinReply = try #require(try await slow.nextFrame())
        let joined = try #require(try JSONSerialization.jsonObject(with: Data(joinReply.text.utf8)) as? [String: Any])
        let result = try #require(joined["result"] as? [String: Any], "\(joinReply.text)")
        let secret = try #require(result["secret"] as? String)
        let lastSeen = try #require((result["snapshot"] as? [String: Any])?["seq"] as? Int)
        _ = try await within("the slow client joins") { try await host.event("userJoined") }
        let text = String(repeating: "x", count: 3_000)
        var sent = 0
        while await !host.keptEvents().contains(where: { TestClient.type(of: $0) == "userReconnecting" }) {
            try await host.request("chat", ["text": text])
            sent += 1
            if sent > 9_000 { throw TestFailure("the slow client was never cut off") }
        }
        withExtendedLifetime(slow) {}
        let last = await host.lastSeq
        #expect(last - lastSeen > 1_024, "cut off with more missed than the outbound bound: \(last - lastSeen)")

        let back = try await TestClient.connect(to: server)
        let resumed = try await back.request("resume", ["secret": secret, "lastSeq": lastSeen])
        #expect(resumed["replayingFrom"] as? Int == lastSeen + 1)
        var chats = 0
        var highest = lastSeen
        while highest < last {
            guard let frame = try await back.nextFrame() else {
                let code = await back.closeCode
                throw TestFailure("closed (\(String(describing: code))) after \(chats) replayed chats")
            }
            if let seq = frame["seq"] as? Int { highest = seq }
            if TestClient.type(of: frame) == "chatMessage" { chats += 1 }
        }
        #expect(chats == sent, "every chat sent while it was too slow")
        await server.stop()
    }
}
