import CaucusCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A server process killed with SIGKILL during a running breakout comes back from its store
/// (its SQLite file, or a real PostgreSQL database): live sessions rebuilt, seats held,
/// nothing acknowledged lost.
@Suite(.serialized) struct RestartRecoveryTests {
    @Test(arguments: ServerStore.allCases)
    func aKilledServerRebuildsTheBreakoutAndUsersResumeIntoTheirRoomsWithNothingLost(store: ServerStore) async throws {
        let folder = TestServer.temporaryFolder()
        let database = try await store.freshDatabase()
        let first = try await ServerProcess(dataDirectory: folder, store: database)
        let host = try await first.joined("Teacher", role: .host)
        let ann = try await first.joined("Ann")
        let ben = try await first.joined("Ben")
        try await host.request("addToPreList", ["names": ["Red", "Blue"]])
        try await host.request("preAssign", ["users": [2, 3], "name": "Red"])
        try await host.request("commit")
        try await host.request("start", ["durationSeconds": 900])
        try await ann.request("ping")
        try await ben.request("ping")
        // Ben drops; Ann goes on talking; every message is acknowledged, so it is durable.
        let benSecret = try #require(await ben.secret)
        let benSeen = await ben.lastSeq
        await ben.close()
        _ = try await ben.closed()
        for index in 1...3 { try await ann.request("chat", ["text": "said before the crash \(index)"]) }
        let annSecret = try #require(await ann.secret)
        let annSeen = await ann.lastSeq

        first.kill(SIGKILL)
        #expect(first.process.terminationReason == .uncaughtSignal)
        _ = try await ann.closed()

        let second = try await ServerProcess(dataDirectory: folder, store: database)
        let annBack = try await TestClient.connect(url: second.webSocketURL)
        try await annBack.request("resume", ["secret": annSecret, "lastSeq": annSeen])
        let benBack = try await TestClient.connect(url: second.webSocketURL)
        let resumed = try await benBack.request("resume", ["secret": benSecret, "lastSeq": benSeen])
        #expect(resumed["user"] as? Int == 3)
        var texts: [String] = []
        for _ in 1...3 {
            let message = try await within("replayed chat") { try await benBack.event("chatMessage") }
            texts.append(((message["event"] as? JSON)?["message"] as? JSON)?["text"] as? String ?? "")
        }
        #expect(texts == (1...3).map { "said before the crash \($0)" })
        let snapshot = try #require(try await benBack.request("getSnapshot")["snapshot"] as? JSON)
        let breakout = snapshot["breakout"] as? JSON
        #expect((breakout?["phase"] as? JSON)?["status"] as? String == "started")
        let red = ((breakout?["rooms"] as? [JSON])?.first { $0["name"] as? String == "Red" })?["id"] as? Int
        let users = snapshot["users"] as? [JSON] ?? []
        #expect(users.first { $0["id"] as? Int == 2 }?["location"] as? Int == red, "Ann is back in Red")
        #expect(users.first { $0["id"] as? Int == 3 }?["location"] as? Int == red, "Ben is back in Red")
        #expect((breakout?["timer"] as? JSON)?["endsAt"] != nil, "the timer survived")
        // The session lives on: chat reaches the room again.
        try await annBack.request("chat", ["text": "after the crash"])
        let live = try await within("live chat") { try await benBack.event("chatMessage") { (($0["event"] as? JSON)?["message"] as? JSON)?["text"] as? String == "after the crash" } }
        #expect(live["seq"] as? Int != nil)
        second.kill(SIGKILL)
    }

    @Test(arguments: ServerStore.allCases)
    func sigtermTellsClientsToReconnectAndTheyResumeAfterTheRestart(store: ServerStore) async throws {
        let folder = TestServer.temporaryFolder()
        let database = try await store.freshDatabase()
        let first = try await ServerProcess(dataDirectory: folder, store: database)
        let host = try await first.joined("Teacher", role: .host)
        let secret = try #require(await host.secret)
        let seen = await host.lastSeq
        first.kill(SIGTERM)
        #expect(try await host.closed() == 1012, "service restart: reconnect")
        #expect(first.process.terminationStatus == 0)
        // The second start names the store in the environment instead (CAUCUS_STORE).
        let second = try await ServerProcess(dataDirectory: folder, environment: database.map { ["CAUCUS_STORE": $0] } ?? [:])
        let back = try await TestClient.connect(url: second.webSocketURL)
        #expect(try await back.request("resume", ["secret": secret, "lastSeq": seen])["user"] as? Int == 1)
        second.kill(SIGKILL)
    }

    /// With a snapshot every 4 events and a replay window of 4, a killed server rebuilds the
    /// session from a snapshot and the few events after it (what the store held is checked
    /// after the restart): everyone is back in place, a user too far behind gets a fresh
    /// snapshot instead of a replay, and the session goes on numbering from its log.
    @Test(arguments: ServerStore.allCases)
    func aKilledServerRebuildsFromTheLatestSnapshotAndTheEventsAfterIt(store: ServerStore) async throws {
        let folder = TestServer.temporaryFolder()
        let database = try await store.freshDatabase()
        let options = ["--snapshot-every", "4", "--replay-window", "4"]
        let first = try await ServerProcess(dataDirectory: folder, store: database, arguments: options)
        let host = try await first.joined("Teacher", role: .host)
        let ann = try await first.joined("Ann")
        let ben = try await first.joined("Ben")
        try await host.request("addToPreList", ["names": ["Red", "Blue"]])
        try await host.request("preAssign", ["users": [2, 3], "name": "Red"])
        try await host.request("commit")
        try await host.request("start", ["durationSeconds": 900])
        try await ben.request("ping")
        let benSecret = try #require(await ben.secret)
        let benSeen = await ben.lastSeq
        for index in 1...9 { try await ann.request("chat", ["text": "before the crash \(index)"]) }
        try await ann.request("ping")
        let annSecret = try #require(await ann.secret)
        let annSeen = await ann.lastSeq
        first.kill(SIGKILL)

        let stored = try #require(try await store.liveSessions(folder: folder, database: database, replayDepth: 4).first)
        let snapshot = try #require(stored.snapshot, "the server saved snapshots as it went")
        #expect(snapshot.seq > benSeen && snapshot.seq <= annSeen - 4)
        #expect(stored.lastSeq == annSeen)

        let second = try await ServerProcess(dataDirectory: folder, store: database, arguments: options)
        let annBack = try await TestClient.connect(url: second.webSocketURL)
        let annResumed = try await annBack.request("resume", ["secret": annSecret, "lastSeq": annSeen])
        // The window holds the tail and the three seats held after the restart: a replay.
        #expect(annResumed["snapshot"] == nil, "nothing missed before the restart: a replay, no snapshot")
        let benBack = try await TestClient.connect(url: second.webSocketURL)
        let benResumed = try await benBack.request("resume", ["secret": benSecret, "lastSeq": benSeen])
        let fresh = try #require(benResumed["snapshot"] as? JSON, "behind the snapshot: a fresh snapshot, not a replay")
        let breakout = fresh["breakout"] as? JSON
        #expect((breakout?["phase"] as? JSON)?["status"] as? String == "started")
        let red = ((breakout?["rooms"] as? [JSON])?.first { $0["name"] as? String == "Red" })?["id"] as? Int
        let users = fresh["users"] as? [JSON] ?? []
        #expect(users.first { $0["id"] as? Int == 2 }?["location"] as? Int == red, "Ann is back in Red")
        #expect(users.first { $0["id"] as? Int == 3 }?["location"] as? Int == red, "Ben is back in Red")
        // The session goes on from the log's end, and chat reaches the room again.
        try await annBack.request("chat", ["text": "after the crash"])
        let live = try await within("live chat") {
            try await benBack.event("chatMessage") { (($0["event"] as? JSON)?["message"] as? JSON)?["text"] as? String == "after the crash" }
        }
        #expect((live["seq"] as? Int ?? 0) > annSeen)
        second.kill(SIGKILL)
    }
}
