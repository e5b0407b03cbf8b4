import Caucus
import Testing

/// `print(event)` shows what happened in a line, never the engine state a snapshot or a
/// handle carries (a printed `sessionJoined` used to run to some 1,900 characters).
@Suite struct EventDescriptionTests {
    @Test func everyEventOfABreakoutPrintsAsOneShortLine() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        _ = try await host.startRoom("Red", joinedBy: [ann])
        try await ann.session.chat.send("hello from Red")
        try await #require(ann.session.subsessionParticipant).requestHelp()
        try await host.log.next("help asked") { if case .helpRequested = $0 { true } else { nil } }
        try await #require(host.session.subsessionManager).broadcast("Two minutes left")
        try await ann.log.next("broadcast") { if case .broadcast = $0 { true } else { nil } }
        try await ann.session.leave()
        try await host.log.next("Ann left") { if case .usersLeft = $0 { true } else { nil } }

        let events = host.log.all + ann.log.all
        let printed = events.map { "\($0)" }
        #expect(events.count > 10)
        for line in printed {
            #expect(line.count <= 200, "\(line.count) characters: \(line.prefix(300))")
            #expect(!line.contains("SessionState") && !line.contains("engine") && !line.contains("\n"), "\(line.prefix(300))")
        }
        let joined = try #require(printed.first { $0.hasPrefix("sessionJoined(") })
        #expect(joined.contains("Teacher") || joined.contains("Ann"), "\(joined)")
        #expect(printed.contains("usersLeft([Ann], reason: left)"), "\(printed)")
        #expect(printed.contains("chatMessage(Ann: hello from Red)"), "\(printed)")
        await server.stop()
    }

    /// Why a user left prints in the names an app writes, never the core's module.
    @Test func whyAUserLeftPrintsWithoutTheCoresModuleName() {
        let reasons: [(SessionLeftReason, String)] = [
            (.left, "left"), (.sessionEnded(.endedByHost), "sessionEnded(endedByHost)"),
            (.sessionEnded(.everyoneLeft), "sessionEnded(everyoneLeft)"), (.removed, "removed"), (.replaced, "replaced"),
            (.connectionLost, "connectionLost"),
        ]
        for (reason, printed) in reasons {
            #expect("\(reason)" == printed)
            #expect("\(SessionEvent.sessionLeft(reason))" == "sessionLeft(\(printed))")
        }
    }
}
