import CaucusCore
import CaucusStore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Fast takeover with real processes: a node whose process died is seen at once, through its
/// liveness lock in PostgreSQL (`NodeLock`), and its sessions move without waiting for their
/// leases to expire; a node that is alive but frozen keeps its lock, and its lease stands.
@Suite(.serialized) struct ClusterFastTakeoverTests {
    /// Issue 27, item 4. The lease is long (30 s) so that only the lock can explain the move:
    /// the resume lands on the other node before the dead owner's lease expiry in the database.
    @Test func aFrozenOwnerKeepsItsSessionButAKilledOneLosesItBeforeItsLeaseExpires() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 30)
        let (owner, other) = (cluster.urls[0], cluster.urls[1])
        let host = try await TestClient.connect(url: owner)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host))
        let ann = try await TestClient.connect(url: owner)
        try await ann.join(session: "Class", userName: "Ann", token: try cluster.token(session: "Class"))
        try await ann.request("chat", ["text": "before the owner died"])
        let secret = try #require(await ann.secret)
        let session = StoredSessionID(rawValue: try #require(Int64(secret.split(separator: ".")[0])))
        let seen = await ann.lastSeq

        // Frozen: alive in PostgreSQL's eyes, so a resume elsewhere is sent to it.
        kill(cluster.nodes[0].process.processIdentifier, SIGSTOP)
        let probe = try await TestClient.connect(url: other)
        let redirected = try await within(seconds: 60, "the other node's answer") {
            try await probe.reply(to: try await probe.send("resume", ["secret": secret, "lastSeq": seen]))
        }
        let error = try #require(redirected["error"] as? JSON, "\(redirected)")
        #expect(error["code"] as? Int == 1015 && error["url"] as? String == owner, "the frozen owner keeps its session: \(error)")
        await probe.close()

        // Dead: its connections close, its lock is free, and the session moves at once.
        let lease = try await StoreReader.lease(of: session, in: cluster.database)
        let expiry = try #require(lease.expiresAt)
        cluster.nodes[0].kill(SIGKILL)
        let back = try await ClusterClient.send("resume", ["secret": secret, "lastSeq": seen], entries: [other], first: 0)
        let resumedAt = Instant.wallClock()
        #expect(back.url == other)
        #expect(back.result["user"] as? Int == (await ann.user), "the same seat")
        #expect(resumedAt < expiry, "resumed at \(resumedAt.milliseconds), the dead owner's lease ran until \(expiry.milliseconds)")
        let taken = try await StoreReader.lease(of: session, in: cluster.database)
        #expect(taken.holder == cluster.node(1) && taken.epoch == lease.epoch.next, "\(taken)")
        let texts = try await StoreReader.events(of: session, in: cluster.database).compactMap { event -> String? in
            if case .chatMessage(let message) = event.event { return message.text }
            return nil
        }
        #expect(texts == ["before the owner died"])
        await back.client.close()
        for node in cluster.nodes { node.kill(SIGKILL) }
    }
}
