import CaucusCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A breakout timer's warning that falls due while no node serves the session (its node was
/// killed, its lease not yet expired) fires at the takeover, as the new owner rebuilds the
/// session: late, once, and the timer's end does not move (docs/protocol.md, "Timers during
/// a takeover").
@Suite(.serialized) struct ClusterTimerTests {
    @Test func aWarningDueWhileNoNodeServesTheSessionFiresAtTheTakeoverAndTheEndStays() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 4)
        let owner = cluster.nodes[0]
        let host = try await owner.joined("Teacher", role: .host)
        _ = try await owner.joined("Ann")
        try await host.request("updateSettings", ["settings": ["timerWarningSeconds": [30]] as JSON])
        try await host.request("addToPreList", ["names": ["Red"]])
        try await host.request("preAssign", ["users": [2], "name": "Red"])
        try await host.request("commit")
        try await host.request("start", ["durationSeconds": 32])
        let started = try await within("the start") { try await host.event("statusChanged", where: { Self.number("endsAt", in: $0) != nil }) }
        let endsAt = try #require(Self.number("endsAt", in: started), "\(started)")
        let due = endsAt - 30_000
        let killedAt = Instant.wallClock().milliseconds
        owner.kill(SIGKILL)

        let secret = try #require(await host.secret)
        let back = try await ClusterClient.send(
            "resume", ["secret": secret, "lastSeq": await host.lastSeq], entries: [cluster.urls[1]], first: 0, patience: 60)
        let warning = try await within("the warning") { try await back.client.event("timerWarning") }
        #expect((warning["event"] as? JSON)?["secondsRemaining"] as? Int == 30)
        let firedAt = try #require(warning["at"] as? Int)
        #expect(firedAt >= due)
        if killedAt < due {
            // Due after the owner died: fired by the new owner, at the takeover, late.
            #expect(firedAt > killedAt, "fired at \(firedAt), the owner was killed at \(killedAt)")
        }
        let snapshot = try await back.client.request("getSnapshot")
        #expect(Self.number("endsAt", in: snapshot) == endsAt, "the end stays where it was: \(snapshot)")
        #expect(await back.client.keptEvents().filter { TestClient.type(of: $0) == "timerWarning" }.isEmpty, "one warning")
        for node in cluster.nodes where node.process.isRunning { node.kill(SIGKILL) }
    }

    /// Timers that fire long after a takeover (beyond the lease's horizon, which bounds the
    /// store calls of the request that rebuilt the session) are stored and delivered like any
    /// other: nobody is closed 4006. The rebuilt session's timer used to inherit that request's
    /// store deadline, so its first write after the horizon failed and closed everyone.
    @Test func timersFiringLongAfterATakeoverCloseNobody() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 4)
        let owner = cluster.nodes[0]
        let host = try await owner.joined("Teacher", role: .host)
        _ = try await owner.joined("Ann")
        try await host.request("updateSettings", ["settings": ["timerWarningSeconds": [12]] as JSON])
        try await host.request("addToPreList", ["names": ["Red"]])
        try await host.request("preAssign", ["users": [2], "name": "Red"])
        try await host.request("commit")
        try await host.request("start", ["durationSeconds": 30])
        _ = try await within("the start") { try await host.event("statusChanged", where: { Self.number("endsAt", in: $0) != nil }) }
        owner.kill(SIGKILL)

        let secret = try #require(await host.secret)
        let back = try await ClusterClient.send(
            "resume", ["secret": secret, "lastSeq": await host.lastSeq], entries: [cluster.urls[1]], first: 0, patience: 60)
        let takenOverAt = Int(Instant.wallClock().milliseconds)
        // The warning falls due some 18 s after the start, at least 10 s after the takeover.
        let warning = try await within(seconds: 60, "the warning") { try await back.client.event("timerWarning") }
        let firedAt = try #require(warning["at"] as? Int)
        #expect(firedAt - takenOverAt > 8_000, "the warning fired \(firedAt - takenOverAt) ms after the takeover")
        // The breakout's end, later still, closes nobody either: the host hears it and still talks.
        _ = try await within(seconds: 60, "the end") {
            try await back.client.event("statusChanged", where: { "\($0)".contains("stopping") || "\($0)".contains("stopped") })
        }
        try await back.client.request("chat", ["text": "still here"])
        _ = try await within("the chat") { try await back.client.event("chatMessage") }
        for node in cluster.nodes where node.process.isRunning { node.kill(SIGKILL) }
    }

    /// The first number named `key` anywhere in `json`.
    static func number(_ key: String, in json: any Sendable) -> Int? {
        if let object = json as? JSON {
            if let value = object[key] as? Int { return value }
            for value in object.values { if let found = number(key, in: value) { return found } }
        } else if let array = json as? [any Sendable] {
            for value in array { if let found = number(key, in: value) { return found } }
        }
        return nil
    }
}
