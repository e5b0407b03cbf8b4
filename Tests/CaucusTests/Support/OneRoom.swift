import Caucus
import Testing

extension Client {
    /// As the host: plans one room, commits and starts it; each of `participants` hears it
    /// start and joins it. The room is returned.
    func startRoom(_ name: String, joinedBy participants: [Client]) async throws -> SubsessionKit {
        try await #require(session.subsessionHelper).addToPreList(name)
        try await #require(session.subsessionHelper).commit()
        try await #require(session.subsessionManager).start()
        let room = try #require(try snapshot.subsession(named: name))
        for participant in participants {
            try await participant.log.next("started") { SeedWalkthroughTests.status($0) == .started ? true : nil }
            try await #require(try participant.snapshot.subsession(room.id)).join()
        }
        return room
    }
}
