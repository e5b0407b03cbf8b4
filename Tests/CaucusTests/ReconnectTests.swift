import Caucus
import CaucusCore
import Testing

/// Reconnecting through a real drop: Ann reaches the server through a TCP proxy that the
/// test cuts (and keeps shut for a while), so her socket ends without a close frame.
@Suite struct ReconnectTests {
    @Test func aDroppedSocketReconnectsIntoTheSameSeatWithEveryMissedEventInOrder() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", session: "Flaky", role: .host)
        let ann = try await server.client("Ann", session: "Flaky", url: proxy.url)
        let ben = try await server.client("Ben", session: "Flaky")
        let red = try await host.startRoom("Red", joinedBy: [ann, ben])
        let annID = try ann.id

        // The drop: the server notices, and the host sees Ann's seat held.
        proxy.cut(refusingNew: true)
        try await ann.log.next("reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        #expect(ann.session.connectionState == .reconnecting)
        try await host.log.next("Ann's seat held") {
            if case .userConnectionChanged(let user) = $0, user.id == annID, !user.isConnected { true } else { nil }
        }
        #expect(try host.snapshot.user(annID)?.location == .room(red.id), "the seat keeps its room")

        // Meanwhile, the room talks and the host broadcasts. A call Ann makes now waits.
        for index in 1...3 { try await ben.session.chat.send("missed \(index)") }
        try await #require(host.session.subsessionManager).broadcast("missed broadcast")
        let waiting = Task { try await ann.session.chat.send("sent while away") }

        // Back: everything missed arrives in order, before Ann is connected again.
        proxy.reopen()
        try await ann.log.next("connected again") { $0.isConnectionState(.connected) ? true : nil }
        try await within("the waiting call") { try await waiting.value }
        let all = ann.log.all
        let dropped = try #require(all.firstIndex { $0.isConnectionState(.reconnecting) })
        let back = try #require(all.lastIndex { $0.isConnectionState(.connected) })
        let missed = all[dropped..<back].compactMap { event -> String? in
            switch event {
            case .chatMessage(let message, _): message.text
            case .broadcast(let text, _): text
            default: nil
            }
        }
        #expect(missed == ["missed 1", "missed 2", "missed 3", "missed broadcast"])
        let snapshot = try ann.snapshot
        #expect(snapshot.mySubsession?.id == red.id, "the same room")
        #expect(snapshot.myself.isConnected)
        #expect(ann.session.subsessionParticipant?.subsession.id == red.id)
        try await ben.log.next("the message sent while away") { SeedWalkthroughTests.chat($0) == "sent while away" ? true : nil }
        try await host.log.next("Ann back") {
            if case .userConnectionChanged(let user) = $0, user.id == annID, user.isConnected { true } else { nil }
        }

        // And live again.
        try await ben.session.chat.send("welcome back")
        try await ann.log.next("live chat") { SeedWalkthroughTests.chat($0) == "welcome back" ? true : nil }
        #expect(!ann.log.all.contains { if case .sessionLeft = $0 { true } else { false } })
        await proxy.stop()
        await server.stop()
    }

    @Test func anAbsenceLongerThanTheReplayWindowResynchronizesFromAFreshSnapshot() async throws {
        let server = try await TestServer.start(replayWindow: 3)
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", session: "Long", role: .host)
        let ann = try await server.client("Ann", session: "Long", url: proxy.url)
        let annID = try ann.id
        proxy.cut(refusingNew: true)
        try await host.log.next("Ann's seat held") {
            if case .userConnectionChanged(let user) = $0, user.id == annID, !user.isConnected { true } else { nil }
        }
        // More happens than the server keeps for replay.
        try await #require(host.session.subsessionHelper).addToPreList("Red", "Blue")
        try await #require(host.session.subsessionHelper).commit()
        try await #require(host.session.subsessionManager).start()
        try await #require(host.session.subsessionManager).assign([annID], to: try #require(try host.snapshot.subsession(named: "Blue")).id)
        for index in 1...4 { try await host.session.chat.send("too old \(index)") }
        proxy.reopen()
        let fresh = try await ann.log.next("the fresh snapshot") { if case .resynchronized(let snapshot) = $0 { snapshot } else { nil } }
        #expect(fresh.status == .started)
        try await ann.log.next("connected again") { $0.isConnectionState(.connected) ? true : nil }
        let snapshot = try ann.snapshot
        #expect(snapshot.mySubsession?.name == "Blue", "the snapshot is right though the events were not replayed")
        #expect(snapshot.subsessions.map(\.name) == ["Red", "Blue"])
        #expect(ann.log.values(SeedWalkthroughTests.chat).isEmpty)
        // Live again, in the room the snapshot says: the main session's chat does not reach Blue.
        try await host.session.chat.send("live")
        try await #require(ann.session.subsessionParticipant).returnToMain()
        try await host.session.chat.send("welcome back")
        try await ann.log.next("live chat") { SeedWalkthroughTests.chat($0) == "welcome back" ? true : nil }
        #expect(!ann.log.values(SeedWalkthroughTests.chat).contains("live"))
        await proxy.stop()
        await server.stop()
    }

    @Test func aResumeRefusedAfterTheGraceEndsTheSessionWithAnError() async throws {
        var limits = SessionLimits.standard
        limits.reconnectGraceSeconds = 1
        let server = try await TestServer.start(limits: limits)
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", session: "Brief", role: .host)
        let ann = try await server.client("Ann", session: "Brief", url: proxy.url)
        let annID = try ann.id

        proxy.cut(refusingNew: true)
        let reason = try await host.log.next("Ann's seat expires") {
            if case .usersLeft(let users, let reason) = $0, users.map(\.id) == [annID] { reason } else { nil }
        }
        #expect(reason == .timedOut)
        proxy.reopen()
        let refusal = try await ann.log.next("the refusal") { if case .error(let error) = $0 { error } else { nil } }
        #expect(refusal.code == .resumeRefused)
        let left = try await ann.log.next("the end") { if case .sessionLeft(let reason) = $0 { reason } else { nil } }
        #expect(left == .connectionLost)
        #expect(ann.session.connectionState == .disconnected)
        let error = await #expect(throws: SessionError.self) { try await ann.session.chat.send("anyone?") }
        #expect(error == .notJoined)
        await proxy.stop()
        await server.stop()
    }
}

extension SessionEvent {
    func isConnectionState(_ state: ConnectionState) -> Bool {
        if case .connectionStateChanged(let new) = self { return new == state }
        return false
    }
}
