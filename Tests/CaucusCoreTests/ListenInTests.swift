import CaucusCore
import Foundation
import Testing

/// Listen-in: a host or manager hears and sees one room without joining it, and the room knows.
@Suite struct ListenInRules {
    /// u1 host, u2 manager (main session), u3 and u4 in room A, u5 in room B, u6 in the main
    /// session; rooms open. Everyone publishes everything.
    static func classroom(_ definition: RoomDefinition = RoomDefinition()) -> (Harness, a: RoomID, b: RoomID) {
        var harness = Harness.session(participants: 5)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.createRooms(definition, count: 2), by: host)
        let (a, b) = (harness.state.rooms[0].id, harness.state.rooms[1].id)
        harness.perform(.assign([UserID(3), UserID(4)], to: a), by: host)
        harness.perform(.assign([UserID(5)], to: b), by: host)
        for id in 1...6 { harness.perform(.publish(.all), by: UserID(id)) }
        return (harness, a, b)
    }

    static func all(of id: Int) -> [MediaSource] { MediaKind.allCases.map { MediaSource(publisher: UserID(id), kind: $0) } }

    @Test func theListenerReceivesTheRoomInsteadOfItsOwnLocation() {
        var (harness, a, _) = Self.classroom()
        #expect(harness.state.mediaSources(for: UserID(2)) == Self.all(of: 1) + Self.all(of: 6))
        let events = harness.perform(.listenIn(a), by: UserID(2))
        #expect(events == [.listening(UserID(2), room: a, active: true)])
        #expect(harness.state.mediaSources(for: UserID(2)) == Self.all(of: 3) + Self.all(of: 4))
        #expect(harness.state.receivingLocation(of: UserID(2)) == .room(a))
        // It is not in the room: the room never receives it, its own location still does.
        #expect(harness.state.users[UserID(2)]?.location == .main)
        for id in [3, 4] { #expect(!harness.state.mediaSources(for: UserID(id)).contains { $0.publisher == UserID(2) }) }
        #expect(harness.state.mediaSources(for: UserID(6)).contains { $0.publisher == UserID(2) })
        // Nobody else's reception changed.
        #expect(harness.state.mediaSources(for: UserID(3)) == Self.all(of: 4))
        #expect(harness.state.mediaSources(for: host) == Self.all(of: 2) + Self.all(of: 6))
    }

    @Test func theListenerGetsWhatTheRoomAllowsAndTheBroadcastFirst() {
        var (harness, a, _) = Self.classroom(RoomDefinition(video: false, screenShare: false))
        harness.perform(.listenIn(a), by: UserID(2))
        #expect(harness.state.mediaSources(for: UserID(2)).map(\.kind) == [.audio, .audio])
        harness.perform(.startVoiceBroadcast, by: host)
        #expect(harness.state.mediaSources(for: UserID(2)).first == MediaSource(publisher: host, kind: .audio))
    }

    @Test func theRoomIsToldAndItsSnapshotListsItsListeners() {
        var (harness, a, b) = Self.classroom()
        let events = harness.perform(.listenIn(a), by: host)
        // Everyone hears of it: the room's users, the managers, the listener and the rest.
        #expect(harness.state.recipients(of: events[0]) == Array(harness.state.users.keys))
        harness.perform(.listenIn(a), by: UserID(2))
        #expect(harness.state.listeners(of: a) == [host, UserID(2)])
        #expect(harness.state.listeners(of: b) == [])
        let snapshot = SessionSnapshot(state: harness.state, viewer: UserID(3), seq: 1)
        #expect(snapshot.listeners == [Listener(user: host, room: a), Listener(user: UserID(2), room: a)])
        #expect(SessionState(restoring: snapshot) == harness.state.visible(to: UserID(3)))
    }

    @Test func whoMayListenAndWhere() {
        var (harness, a, b) = Self.classroom()
        harness.refuse(.listenIn(a), by: UserID(6), .notPermitted)
        harness.refuse(.listenIn(a), by: .server, .userRequired)
        harness.refuse(.listenIn(RoomID(99)), by: host, .roomNotFound)
        harness.refuse(.stopListening, by: host, .notListening)
        harness.refuse(.stopListening, by: UserID(3), .notPermitted)
        harness.perform(.listenIn(a), by: host)
        harness.refuse(.listenIn(a), by: host, .alreadyListening)
        // Another room: the first listen-in ends, the second begins, in one command.
        #expect(harness.perform(.listenIn(b), by: host) == [.listening(host, room: a, active: false), .listening(host, room: b, active: true)])
        #expect(harness.perform(.stopListening, by: host) == [.listening(host, room: b, active: false)])
        #expect(harness.state.listeners.isEmpty)
        // Listening to the room one is in is refused: one hears it already.
        harness.perform(.joinRoom(a), by: UserID(2))
        harness.refuse(.listenIn(a), by: UserID(2), .alreadyInRoom)
        // A manager in a room may listen in to another.
        harness.perform(.listenIn(b), by: UserID(2))
        #expect(harness.state.mediaSources(for: UserID(2)) == Self.all(of: 5))
    }

    @Test func listeningNeedsOpenRooms() {
        var harness = Harness.session(participants: 2)
        harness.commitRooms(["A"])
        harness.refuse(.listenIn(harness.roomID(named: "A")), by: host, .wrongStatus)
    }

    /// Each cause of an end, on its own: the listen-in ends with an event of its own.
    static let endings: [(String, @Sendable (inout Harness, RoomID, RoomID) -> Void)] = [
        ("stopListening", { harness, _, _ in harness.perform(.stopListening, by: UserID(2)) }),
        ("joins the room", { harness, a, _ in harness.perform(.joinRoom(a), by: UserID(2)) }),
        ("joins another room", { harness, _, b in harness.perform(.joinRoom(b), by: UserID(2)) }),
        ("is assigned", { harness, _, b in harness.perform(.assign([UserID(2)], to: b), by: host) }),
        ("breakout stopped", { harness, _, _ in harness.perform(.stop(countdownSeconds: 0), by: host) }),
        ("rooms destroyed", { harness, _, _ in harness.perform(.destroyAll, by: host) }),
        ("leave", { harness, _, _ in harness.perform(.leave(endSession: false), by: UserID(2)) }),
        ("removed", { harness, _, _ in harness.perform(.remove(UserID(2)), by: host) }),
        ("timed out", { harness, _, _ in
            harness.perform(.connectionLost(UserID(2)), by: .server)
            harness.tick(after: 3600)
        }),
        ("manager revoked", { harness, _, _ in harness.perform(.revokeManager(UserID(2)), by: host) }),
    ]

    @Test(arguments: endings.indices)
    func theListenInEndsOnEachCause(_ index: Int) {
        var (harness, a, _) = Self.classroom()
        harness.perform(.listenIn(a), by: UserID(2))
        let before = harness.log.count
        Self.endings[index].1(&harness, a, harness.state.rooms[1].id)
        let cause = Self.endings[index].0
        #expect(harness.state.listeners.isEmpty, "\(cause)")
        #expect(harness.log[before...].contains(.listening(UserID(2), room: a, active: false)), "\(cause)")
        if let location = harness.state.users[UserID(2)]?.location {
            #expect(harness.state.receivingLocation(of: UserID(2)) == location, "\(cause)")
        }
    }

    @Test func aMoveOfSomeoneElseOrAReturnOfOthersLeavesTheListenerListening() {
        var (harness, a, b) = Self.classroom()
        harness.perform(.listenIn(a), by: UserID(2))
        harness.perform(.assign([UserID(6)], to: b), by: host)
        harness.perform(.returnEveryone, by: host)
        harness.perform(.stop(countdownSeconds: 30), by: host)
        #expect(harness.state.listeners[UserID(2)] == a)
        harness.perform(.endSession, by: host)
        #expect(harness.state.listeners.isEmpty)
    }

    @Test func aStateStoredBeforeBroadcastAndListenInStillDecodes() throws {
        var (harness, a, _) = Self.classroom()
        let plain = try JSONEncoder().encode(harness.state)
        var object = try #require(try JSONSerialization.jsonObject(with: plain) as? [String: Any])
        // The new fields are there once something uses them, and a state without them decodes.
        harness.perform(.listenIn(a), by: UserID(2))
        harness.perform(.startVoiceBroadcast, by: host)
        let stored = try JSONEncoder().encode(harness.state)
        #expect(try JSONDecoder().decode(SessionState.self, from: stored) == harness.state)
        object.removeValue(forKey: "listeners")
        object.removeValue(forKey: "voiceBroadcaster")
        let old = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONDecoder().decode(SessionState.self, from: old)
        #expect(decoded.listeners.isEmpty && decoded.voiceBroadcaster == nil)
        #expect(decoded == (try JSONDecoder().decode(SessionState.self, from: plain)))
    }
}
