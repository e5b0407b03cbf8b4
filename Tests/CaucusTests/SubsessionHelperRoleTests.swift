import Caucus
import Testing

/// The planning helper is handed only to the roles that may use it, as Zoom's
/// `getSubSessionHelper()`: the host and managers, not a participant.
@Suite struct SubsessionHelperRoleTests {
    @Test func aParticipantHasNoHelperUntilPromoted() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        #expect(host.session.subsessionHelper != nil, "the host plans")
        #expect(ann.session.subsessionHelper == nil, "a participant has no helper")

        try await host.session.userHelper.makeManager(try ann.id)
        try await ann.log.next("promoted") { if case .managerHandle(_?) = $0 { true } else { nil } }
        let helper = try #require(ann.session.subsessionHelper, "a manager has one")
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        #expect(try await helper.committedList().map(\.name) == ["Red"], "and reads the committed list with it")

        try await host.session.userHelper.revokeManager(try ann.id)
        try await ann.log.next("demoted") { if case .managerHandle(.none) = $0 { true } else { nil } }
        #expect(ann.session.subsessionHelper == nil, "it goes with the role")

        try await host.session.leave()
        #expect(host.session.subsessionHelper == nil, "and with the session")
        await server.stop()
    }
}
