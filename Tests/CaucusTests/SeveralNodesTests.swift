import Caucus
import CaucusCore
import CaucusPostgresTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The SDK against two real `caucus serve` nodes sharing one PostgreSQL: a join sent to the
/// node that does not serve the session follows `otherNode`; when the serving node is killed,
/// the seat comes back through the other one (from `Configuration.nodeURLs`) once it took the
/// session over: the same user, in its room, never joined again.
@Suite(.serialized) struct SeveralNodesTests {
    @Test func aJoinFollowsTheServingNodeAndTheSeatOutlivesThatNode() async throws {
        let database = try await TestPostgres.shared.freshDatabase("sdk")
        let folder = temporaryFolder(prefix: "caucus-sdk-nodes-")
        var nodes: [ServerProcess] = []
        for _ in 0..<2 {
            nodes.append(
                try await ServerProcess.onAFreePort(dataDirectory: folder, store: database) {
                    ["--node-url", "http://127.0.0.1:\($0)", "--lease-seconds", "2"]
                })
        }
        let urls = nodes.map { URL(string: $0.webSocketURL)! }
        var configuration = BadNetworkTests.configuration
        configuration.nodeURLs = urls

        // The host opens the session on the first node; Ann is given the second, and sent on.
        let host = Client(configuration: configuration)
        let hostToken = try nodes[0].token(session: "Geology", role: .host)
        try await within("the host joins") {
            try await host.session.join(url: urls[0], sessionName: "Geology", userName: "Teacher", token: hostToken)
        }
        let ann = Client(configuration: configuration)
        let annToken = try nodes[1].token(session: "Geology")
        try await within("Ann joins through the other node") {
            try await ann.session.join(url: urls[1], sessionName: "Geology", userName: "Ann", token: annToken)
        }
        let annID = try ann.snapshot.myself.id
        try await eventually(seconds: 30, "the host sees Ann: one session, on one node") {
            try host.snapshot.users.map(\.name).sorted() == ["Ann", "Teacher"]
        }
        let red = try await host.startRoom("Red", joinedBy: [ann])
        try await ann.session.chat.send("before the node died")
        try await ann.log.next("connected by the join") { $0.isConnectionState(.connected) ? true : nil }

        nodes[0].kill(SIGKILL)
        try await ann.log.next(seconds: 30, "Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        // Back once the second node took the session over (its lease lasts 2 s).
        try await ann.log.next(seconds: 60, "Ann connected again") { $0.isConnectionState(.connected) ? true : nil }
        let snapshot = try ann.snapshot
        #expect(snapshot.myself.id == annID, "the same seat")
        #expect(snapshot.mySubsession?.id == red.id, "the same room")
        let manager = try #require(host.session.subsessionManager)
        try await within(seconds: 60, "the host broadcasts") { try await manager.broadcast("after the node died") }
        try await ann.log.next(seconds: 30, "the host's broadcast") {
            if case .broadcast("after the node died", _) = $0 { return true }
            return nil
        }
        let all = ann.log.all
        #expect(all.filter { if case .sessionJoined = $0 { true } else { false } }.count == 1, "resumed, never joined again")
        #expect(!all.contains { if case .sessionLeft = $0 { true } else { false } })
        #expect(ann.log.values(SeedWalkthroughTests.chat).filter { $0 == "before the node died" }.count == 1)
        nodes[1].kill(SIGKILL)
    }
}
