import Caucus
import CaucusCore
import Testing

/// After the session is over for this user, the SDK no longer claims they are in it: no
/// snapshot placing them in a room, and no room or manager handle whose calls can only fail.
@Suite struct SessionLeftTests {
    @Test func leavingFromARoomLeavesNoSnapshotAndNoHandles() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        try await #require(host.session.subsessionManager).start()
        try await ann.log.next("started") { SeedWalkthroughTests.status($0) == .started ? true : nil }
        try await #require(try ann.snapshot.subsession(named: "Red")).join()
        #expect(ann.session.subsessionParticipant != nil, "in a room, Ann has a room handle")

        try await ann.session.leave()
        #expect(ann.session.snapshot == nil, "a left session has no snapshot")
        #expect(ann.session.subsessionParticipant == nil)
        #expect(ann.session.myself == nil && ann.session.remoteUsers.isEmpty)
        let left = try await ann.log.next("left") { if case .sessionLeft(let reason) = $0 { reason } else { nil } }
        #expect(left == .left)

        // The host's manager handle goes the same way.
        try await host.log.next("Ann gone") { if case .usersLeft(let users, .left) = $0, users.map(\.name) == ["Ann"] { true } else { nil } }
        try await host.session.leave()
        #expect(host.session.snapshot == nil)
        #expect(host.session.subsessionManager == nil && host.session.subsessionParticipant == nil)
        await server.stop()
    }

    @Test func aLostConnectionLeavesNoSnapshotAndNoHandles() async throws {
        var limits = SessionLimits.standard
        limits.reconnectGraceSeconds = 1
        let server = try await TestServer.start(limits: limits)
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", session: "Brief", role: .host)
        let ann = try await server.client("Ann", session: "Brief", url: proxy.url)
        let annID = try ann.id
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        try await #require(host.session.subsessionManager).start()
        try await ann.log.next("started") { SeedWalkthroughTests.status($0) == .started ? true : nil }
        try await #require(try ann.snapshot.subsession(named: "Red")).join()
        #expect(ann.session.subsessionParticipant != nil)

        // Ann's seat expires while she cannot reach the server; her resume is then refused.
        proxy.cut(refusingNew: true)
        try await host.log.next("Ann's seat expires") {
            if case .usersLeft(let users, .timedOut) = $0, users.map(\.id) == [annID] { true } else { nil }
        }
        proxy.reopen()
        let left = try await ann.log.next("the end") { if case .sessionLeft(let reason) = $0 { reason } else { nil } }
        #expect(left == .connectionLost)
        #expect(ann.session.snapshot == nil, "a lost session has no snapshot")
        #expect(ann.session.subsessionParticipant == nil && ann.session.subsessionManager == nil)
        #expect(ann.session.myself == nil)
        await proxy.stop()
        await server.stop()
    }
}
