import CaucusCore
import CaucusServer
import Testing

@Suite struct LiveSessionTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let now: Instant
        init(_ now: Instant) { self.now = now }
    }

    @Test func eventsAreNumberedAppliedAndAddressed() async throws {
        let clock = ManualClock(Instant(seconds: 1_700_000_000))
        let session = LiveSession(clock: { clock.now }, generator: SplitMix64(seed: 1))
        let hostJoin = try await session.perform(.join(JoinRequest(sessionName: "Class", userName: "Ada", claim: .host)), by: .server)
        #expect(hostJoin.map(\.event.seq) == [1, 2])
        #expect(hostJoin[1].recipients == [UserID(1)])
        let bobJoin = try await session.perform(.join(JoinRequest(sessionName: "Class", userName: "Bob")), by: .server)
        #expect(bobJoin.map(\.event.seq) == [3])
        #expect(bobJoin[0].recipients == [UserID(1), UserID(2)])
        let chat = try await session.perform(.chat("hi", to: .user(UserID(2))), by: .user(UserID(1)))
        #expect(chat[0].recipients == [UserID(1), UserID(2)])
        let log = await session.log
        #expect(log.map(\.seq) == [1, 2, 3, 4])
        #expect(SessionState(replaying: log.map(\.event)) == (await session.state))
    }

    @Test func aRefusalLeavesTheLogAlone() async throws {
        let session = LiveSession()
        _ = try await session.perform(.join(JoinRequest(sessionName: "Class", userName: "Ada", claim: .host)), by: .server)
        await #expect(throws: CaucusError.self) {
            try await session.perform(.commit, by: .user(UserID(1)))
        }
        #expect(await session.log.count == 2)
    }
}
