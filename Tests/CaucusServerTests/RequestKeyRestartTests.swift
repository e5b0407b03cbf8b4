import CaucusCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A keyed chat's key outlives the server process: killed with SIGKILL and started again (on
/// its SQLite file, or a real PostgreSQL database, as another node taking the session over
/// reads it), the server rebuilds the session from its latest snapshot and the events after it,
/// and still knows the key. The chat sent again under it is answered `done` and not applied
/// again; the key given to another message is refused with 6004.
@Suite(.serialized) struct RequestKeyRestartTests {
    static func messages(_ client: TestClient) async -> [String] {
        await client.keptEvents().compactMap { frame in
            guard TestClient.type(of: frame) == "chatMessage" else { return nil }
            return ((frame["event"] as? JSON)?["message"] as? JSON)?["text"] as? String
        }
    }

    @Test(arguments: ServerStore.allCases)
    func aKeyedChatIsNotAppliedAgainAfterTheServerIsKilledAndRestarted(store: ServerStore) async throws {
        let folder = TestServer.temporaryFolder()
        let database = try await store.freshDatabase()
        let options = ["--snapshot-every", "2", "--replay-window", "2"]
        let first = try await ServerProcess(dataDirectory: folder, store: database, arguments: options)
        let ann = try await first.joined("Ann")
        let ben = try await first.joined("Ben")
        let sent = try await ann.request("chat", ["text": "only once", "requestKey": "ann-1"])
        let keyedSeq = try #require(sent["seq"] as? Int)
        // More events after it, so that a snapshot holds the key and the log after it does not.
        for index in 1...4 { try await ben.request("chat", ["text": "filler \(index)"]) }
        try await ann.request("ping")
        let annSecret = try #require(await ann.secret)
        let annSeen = await ann.lastSeq
        first.kill(SIGKILL)
        let stored = try #require(try await store.liveSessions(folder: folder, database: database, replayDepth: 2).first)
        #expect((stored.snapshot?.seq ?? 0) >= keyedSeq, "the key is in a snapshot, not in the events replayed after it")

        let second = try await ServerProcess(dataDirectory: folder, store: database, arguments: options)
        let annBack = try await TestClient.connect(url: second.webSocketURL)
        try await annBack.request("resume", ["secret": annSecret, "lastSeq": annSeen])
        let repeated = try await annBack.request("chat", ["text": "only once", "requestKey": "ann-1"])
        #expect(repeated["seq"] == nil, "a repeat makes no event")
        #expect(try await annBack.refused("chat", ["text": "another", "requestKey": "ann-1"]) == 6004)
        try await annBack.request("chat", ["text": "the next one", "requestKey": "ann-2"])
        _ = try await within("the next message") {
            try await annBack.event("chatMessage") { (($0["event"] as? JSON)?["message"] as? JSON)?["text"] as? String == "the next one" }
        }
        let others = await Self.messages(annBack)
        #expect(others.isEmpty, "neither the repeat nor the refused message reached anyone: \(others)")
        second.kill(SIGKILL)
    }
}
