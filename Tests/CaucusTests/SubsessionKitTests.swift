import Caucus
import Testing

/// A `SubsessionKit` is a value: the room as it was when the kit was made. `current` is the
/// same room as the session sees it now.
@Suite struct SubsessionKitTests {
    @Test func aKitKeepsItsMomentAndCurrentShowsWhoJoinedSince() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let helper = try #require(host.session.subsessionHelper)
        try await helper.addToPreList("Red")
        try await helper.commit()
        try await #require(host.session.subsessionManager).start()
        // Kept from before Ann joins the room, as an app keeps the kits of a status change.
        let red = try #require(try host.snapshot.subsession(named: "Red"))
        #expect(red.users.isEmpty)

        try await ann.log.next("started") { SeedWalkthroughTests.status($0) == .started ? true : nil }
        try await #require(try ann.snapshot.subsession(named: "Red")).join()
        try await host.log.next("Ann in Red") {
            if case .subsessionUsersUpdated(let kit) = $0, kit.users.map(\.name) == ["Ann"] { true } else { nil }
        }
        #expect(red.users.isEmpty, "the kit is the room as it was when it was made")
        let now = try #require(red.current, "the room is still committed")
        #expect(now.id == red.id && now.name == "Red")
        #expect(now.users.map(\.name) == ["Ann"], "current is the room as it is now")

        try await host.session.breakoutRooms.destroyAll()
        #expect(red.current == nil, "a room no longer in the committed list has no current")
        await server.stop()
    }

    @Test func aKitHasNoCurrentOnceTheSessionIsOver() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        let red = try #require(try host.snapshot.subsession(named: "Red"))
        #expect(red.current == red, "nothing changed since it was made")
        try await host.session.leave()
        #expect(red.current == nil)
        await server.stop()
    }
}
