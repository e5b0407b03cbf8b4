import Caucus
import CaucusCore
import Testing

/// Media state through the SDK and a real server: what one user publishes reaches everyone's
/// copy of the session, and a newcomer's snapshot shows it.
@Suite struct MediaStateTests {
    @Test func whatAUserPublishesReachesEveryonesSessionAndSnapshots() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        try await ann.session.publish([.audio, .video])
        let seen = try await host.log.next("Ann's media") { if case .mediaChanged(let user) = $0 { user } else { nil } }
        #expect(seen.name == "Ann" && seen.publishing == [.audio, .video])
        #expect(try host.snapshot.user(named: "Ann")?.publishing == [.audio, .video])
        #expect(try ann.snapshot.myself.publishing == [.audio, .video])
        // Muting the microphone: the rest stays published.
        try await ann.session.publish([.video])
        let muted = try await host.log.next("Ann muted") { if case .mediaChanged(let user) = $0 { user } else { nil } }
        #expect(muted.publishing == [.video])
        let again = await #expect(throws: SessionError.self) { try await ann.session.publish([.video]) }
        #expect(again?.code == .mediaUnchanged)
        // A newcomer's join snapshot carries it.
        let ben = try await server.client("Ben")
        #expect(try ben.snapshot.user(named: "Ann")?.publishing == [.video])
        #expect(try ben.snapshot.user(named: "Teacher")?.publishing == [])
        await server.stop()
    }
}
