import CaucusCore
import CaucusStore
import CaucusStorePostgres
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Fencing with real processes: a node stopped (SIGSTOP) long enough for its lease to expire
/// loses the session to another node, and when it wakes (SIGCONT) it cannot append anything,
/// even what a client sent it while it slept.
@Suite(.serialized) struct ClusterFencingTests {
    @Test func aStoppedOwnerWokenAfterATakeoverWritesNothingAndSendsItsClientsToTheNewOwner() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 2)
        let (owner, other) = (cluster.urls[0], cluster.urls[1])
        let host = try await TestClient.connect(url: owner)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host))
        let ann = try await TestClient.connect(url: owner)
        try await ann.join(session: "Class", userName: "Ann", token: try cluster.token(session: "Class"))
        try await ann.request("chat", ["text": "before the stop"])
        let secret = try #require(await ann.secret)
        let session = StoredSessionID(rawValue: try #require(Int64(secret.split(separator: ".")[0])))

        kill(cluster.nodes[0].process.processIdentifier, SIGSTOP)
        // Ben joins through the other node: sent to the owner while its lease is live (which
        // does not answer), taken over by the other node once it expired.
        let ben = try await ClusterClient.send(
            "join", ["session": "Class", "userName": "Ben", "token": try cluster.token(session: "Class")], entries: [other], first: 0,
            patience: 40)
        #expect(ben.url == other)
        let taken = try await StoreReader.lease(of: session, in: cluster.database)
        #expect(taken.holder == NodeID("http://127.0.0.1:\(cluster.nodes[1].port)"))
        #expect(taken.epoch == LeaseEpoch(rawValue: 2), "the opener held epoch 1; the takeover took the next")

        // Ann's socket to the sleeping node is still open: what she sends waits in its buffer.
        let request = try await ann.send("chat", ["text": "sent to the sleeping node"])
        kill(cluster.nodes[0].process.processIdentifier, SIGCONT)
        let reply = try? await within("the woken node's answer") { try await ann.reply(to: request) }
        #expect(reply?["error"] != nil || reply == nil, "never acknowledged: \(String(describing: reply))")
        #expect(try await within("the woken node closing") { try await ann.closed() } == 4007, "moved: reconnect and resume")
        #expect(cluster.nodes[0].process.isRunning, "the woken node lost a session, not its life")

        let log = try await StoreReader.events(of: session, in: cluster.database)
        let texts = log.compactMap { event -> String? in
            if case .chatMessage(let message) = event.event { return message.text }
            return nil
        }
        #expect(texts == ["before the stop"], "nothing of the fenced node after the takeover: \(texts)")
        #expect(Array(log.map(\.seq)) == Array(1...log.count), "one unbroken log")

        // Ann resumes on the new owner, through either node.
        let back = try await ClusterClient.send("resume", ["secret": secret, "lastSeq": await ann.lastSeq], entries: [owner], first: 0)
        #expect(back.url == other)
        #expect(back.result["user"] as? Int == (await ann.user))
        for node in cluster.nodes { node.kill(SIGKILL) }
    }

    /// The requests a stopped owner finds waiting when it wakes, after another node took its
    /// session over, are for a session it no longer has: each resume is sent to the new owner
    /// (1015), never refused from the woken node's stale memory (1007, "join again"), and the
    /// control API redirects there (307), never fails.
    @Test func aStoppedOwnerWokenAfterATakeoverSendsResumesAndControlRequestsToTheNewOwner() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 2)
        let (owner, other) = (cluster.urls[0], cluster.urls[1])
        let host = try await TestClient.connect(url: owner)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host))
        let secret = try #require(await host.secret)
        let session = try #require(Int64(secret.split(separator: ".")[0]))
        // Connected before the stop, so that their requests wait in the sleeping node's buffers.
        var waiting: [TestClient] = []
        for _ in 0..<3 { waiting.append(try await TestClient.connect(url: owner)) }

        kill(cluster.nodes[0].process.processIdentifier, SIGSTOP)
        let ben = try await ClusterClient.send(
            "join", ["session": "Class", "userName": "Ben", "token": try cluster.token(session: "Class")], entries: [other], first: 0,
            patience: 40)
        #expect(ben.url == other)
        // The new owner's log has moved past what the sleeping node remembers (Ben's join).
        await ben.client.joined(with: ben.result)
        let benSecret = try #require(ben.result["secret"] as? String)
        let seen = await ben.client.lastSeq
        #expect(seen > (await host.lastSeq))
        var resumes: [Int] = []
        for (index, client) in waiting.enumerated() {
            resumes.append(try await client.send("resume", ["secret": index == 0 ? secret : benSecret, "lastSeq": seen]))
        }
        let path = "/v1/sessions/\(session)/operations"
        let curl = [
            "-u", "\(ServerProcess.app.key):\(ServerProcess.app.secret)", "-X", "POST", "-H", "Content-Type: application/json",
            "--data", #"{"op":"addToPreList","names":["Sent to the sleeping node"]}"#, "http://127.0.0.1:\(cluster.nodes[0].port)\(path)",
        ]
        let operation = Task { () async throws -> (status: Int, location: String?, body: String) in
            let result = try await Curl.run(curl)
            return (result.status, result.location, result.body)
        }
        // curl's request reaches the sleeping node's socket before it wakes.
        try await Task.sleep(for: .milliseconds(500))
        kill(cluster.nodes[0].process.processIdentifier, SIGCONT)

        for (client, request) in zip(waiting, resumes) {
            let reply = try? await within("the woken node's answer") { try await client.reply(to: request) }
            if let reply {
                let error = try #require(reply["error"] as? JSON, "the woken node serves the session no more: \(reply)")
                #expect(error["code"] as? Int == 1015, "sent to the new owner, never refused: \(error)")
                #expect(error["url"] as? String == other)
            } else {
                #expect(await client.closeCode == .some(4007), "no answer but a close that says it moved")
            }
        }
        let redirected = try await operation.value
        #expect(redirected.status == 307, "\(redirected.status): \(redirected.body)")
        #expect(redirected.location == "http://127.0.0.1:\(cluster.nodes[1].port)\(path)")
        #expect(try await within("the host's close") { try await host.closed() } == 4007)
        for node in cluster.nodes { node.kill(SIGKILL) }
    }
}

/// Reads what the nodes left in the shared database.
enum StoreReader {
    static func lease(of session: StoredSessionID, in database: String) async throws -> SessionLeaseState {
        try await withStore(database) { try await $0.lease(of: session) }
    }

    /// The database's committed transactions so far (`pg_stat_database.xact_commit`).
    static func committedTransactions(in database: String) async throws -> Int64 {
        try await withStore(database) { try await $0.committedTransactions() }
    }

    /// Each live session of the test app with its owner's run and its epoch.
    static func owners(in database: String) async throws -> [StoredSessionID: String] {
        try await withStore(database) { store in
            let listing = try await store.liveSessionListing(app: ServerProcess.app.key)
            return Dictionary(uniqueKeysWithValues: listing.map { ($0.id, "\($0.lease.owner?.description ?? "nobody") \($0.lease.epoch)") })
        }
    }

    static func events(of session: StoredSessionID, in database: String) async throws -> [SequencedEvent] {
        try await withStore(database) { try await $0.events(of: session, after: 0) }
    }

    private static func withStore<T: Sendable>(_ database: String, _ body: (PostgresSessionStore) async throws -> T) async throws -> T {
        let store = PostgresSessionStore(location: try PostgresStoreLocation(url: database))
        let pool = Task { try await store.run() }
        defer { pool.cancel() }
        try await store.prepare()
        return try await body(store)
    }
}
