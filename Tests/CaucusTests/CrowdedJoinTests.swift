import Caucus
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import Testing

/// A first join the server closes 4009 (its address has as many connections waiting to join
/// as allowed, as when a class behind one NAT joins together) is tried again by the SDK
/// after a jittered delay, and joins once there is room (issue 41, item 5).
@Suite(.serialized) struct CrowdedJoinTests {
    @Test func aFirstJoinClosed4009IsTriedAgainUntilItJoins() async throws {
        let server = try await TestServer.start { configuration in
            configuration.maxWaitingPerAddress = 1
        }
        // A plain TCP connection that says nothing holds this address's one place from its accept.
        let holder = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: server.port).get()
        let before = try await Self.refusals(server)
        let client = Client()
        let token = try server.token(session: "Class", role: .host)
        let joining = Task {
            try await client.session.join(url: server.url, sessionName: "Class", userName: "Ann", token: token)
        }
        try await within("two joins closed 4009") {
            while try await Self.refusals(server) < before + 2 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(client.session.snapshot == nil, "not joined while the place is held")
        try await holder.close()
        try await within("the join taken on a retry") { try await joining.value }
        #expect(try client.snapshot.myself.name == "Ann")
        try await client.session.leave()
        await server.stop()
    }

    /// Upgrades the server closed 4009 so far.
    static func refusals(_ server: TestServer) async throws -> Double {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/metrics")!)
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("caucus_unjoined_refused_total ") {
            return Double(line.dropFirst("caucus_unjoined_refused_total ".count)) ?? 0
        }
        return 0
    }
}
