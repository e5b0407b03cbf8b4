import Caucus
import Testing

/// Events are values an app can compare: two users hearing the same thing hear equal events,
/// and events that say different things differ.
@Suite struct SessionEventEquatableTests {
    @Test func usersHearingTheSameThingHearEqualEvents() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        try await host.session.chat.send("hello")

        let committed = { @Sendable (event: SessionEvent) -> SessionEvent? in
            if case .subsessionStatusChanged(.committed, _) = event { event } else { nil }
        }
        let chat = { @Sendable (event: SessionEvent) -> SessionEvent? in if case .chatMessage = event { event } else { nil } }
        let annCommitted = try await ann.log.next("committed", committed)
        let benCommitted = try await ben.log.next("committed", committed)
        let rooms = try host.snapshot.subsessions
        #expect(annCommitted == benCommitted)
        #expect(annCommitted == .subsessionStatusChanged(.committed, rooms))
        #expect(annCommitted != .subsessionStatusChanged(.started, rooms))
        #expect(annCommitted != .subsessionStatusChanged(.committed, []))
        let annChat = try await ann.log.next("the message", chat)
        let benChat = try await ben.log.next("the message", chat)
        #expect(annChat == benChat)
        let (teacher, hello) = (try host.snapshot.myself, try #require(message(in: annChat)))
        #expect(annChat == .chatMessage(hello, from: teacher))
        #expect(annChat != .chatMessage(hello.edited("goodbye"), from: teacher))
        await server.stop()
    }

    @Test func snapshotsAndHandlesCompareByWhatTheyShowAndWhomTheyActFor() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let before = try ann.snapshot
        #expect(try SessionEvent.sessionJoined(before) == .sessionJoined(ann.snapshot), "the same moment")
        try await host.session.chat.send("hello")
        try await ann.log.next("the message") { if case .chatMessage = $0 { true } else { nil } }
        #expect(try SessionEvent.sessionJoined(before) != .sessionJoined(ann.snapshot), "a later snapshot differs")

        let manager = try #require(host.session.subsessionManager)
        #expect(SessionEvent.managerHandle(manager) == .managerHandle(host.session.subsessionManager))
        #expect(SessionEvent.managerHandle(manager) != .managerHandle(nil))
        try await host.session.userHelper.makeManager(try ann.id)
        try await ann.log.next("promoted") { if case .managerHandle(_?) = $0 { true } else { nil } }
        #expect(SessionEvent.managerHandle(manager) != .managerHandle(ann.session.subsessionManager), "another session's powers")
        await server.stop()
    }
}

private func message(in event: SessionEvent) -> ChatMessage? {
    if case .chatMessage(let message, _) = event { return message }
    return nil
}

extension ChatMessage {
    fileprivate func edited(_ text: String) -> ChatMessage {
        ChatMessage(id: id, from: from, scope: scope, text: text, sentAt: sentAt)
    }
}
