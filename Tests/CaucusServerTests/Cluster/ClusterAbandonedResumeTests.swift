import CaucusTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A resume that waits for the store (after PostgreSQL restarted, say) while its client gives
/// it up and resumes on another connection must not, once the store answers, take the seat
/// from that live connection: 4004 "replaced" is final for the SDK. The wait is made real by
/// a transaction of `psql` holding the sessions table locked for a few seconds, which the
/// owner's check of its lease waits behind.
@Suite(.serialized) struct ClusterAbandonedResumeTests {
    /// Locks the sessions table of `database` for `seconds` in a `psql` process.
    static func lockSessions(of database: String, seconds: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "psql", database, "-v", "ON_ERROR_STOP=1", "-q", "-c",
            "BEGIN; LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(\(seconds)); COMMIT;",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func aResumeItsClientClosedWhileItWaitedReplacesNoLiveConnection() async throws {
        let cluster = try await ClusterNodes(count: 1, leaseSeconds: 20)
        let url = cluster.urls[0]
        let host = try await TestClient.connect(url: url)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host))
        try await host.request("chat", ["text": "before"])
        let secret = try #require(await host.secret)
        let lastSeq = await host.lastSeq

        let lock = try Self.lockSessions(of: cluster.database, seconds: 3)
        try await Task.sleep(for: .milliseconds(500))
        // The abandoned attempt: its resume waits behind the lock, then its client drops the
        // socket without a closing handshake, as the SDK abandons an attempt.
        var abandoned: RawWebSocket? = try RawWebSocket(port: cluster.nodes[0].port)
        try abandoned?.sendText(#"{"id": 1, "op": "resume", "secret": "\#(secret)", "lastSeq": \#(lastSeq)}"#)
        try await Task.sleep(for: .milliseconds(300))
        abandoned = nil
        try await within(seconds: 30, "the lock's end") {
            while lock.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(lock.terminationStatus == 0, "psql could not hold the lock")
        // Whatever the abandoned resume became, the live connection still holds the seat.
        try await Task.sleep(for: .seconds(1))
        try await host.request("chat", ["text": "still the seat's connection"])
        let closed = try? await within(seconds: 1, "a close") { try await host.closed() }
        #expect(closed == nil, "the live connection was closed \(String(describing: closed))")
        cluster.nodes[0].kill(SIGKILL)
    }
}
