import CaucusCore
import CaucusProtocol

/// Real values of every type Caucus encodes, with text that needs escaping.
enum EncodingFixtures {
    static let t0 = Instant(seconds: 1_700_000_000)
    static let tricky = "Ana \"A.\" O'Neil / \\ tab\tnl\n\u{1} \u{7F} Ø 東京 🎉"
    static let limits = SessionLimits.standard
    static let settings = SessionSettings(
        selfSelectAllowed: false, returnToMainAllowed: true, autoMoveOnStart: false, roomCreators: .everyone,
        countdownSeconds: 30, timerWarningSeconds: [120, 60, 10], managersMayRecord: true)
    static let timer = BreakoutTimer(endsAt: Instant(milliseconds: 1_700_000_900_123), pendingWarnings: [60, 10])
    static let room = Room(
        id: RoomID(3), name: "Room / 3", definition: RoomDefinition(capacity: 8, audio: true, video: false, canvas: true),
        assigned: [UserID(2), UserID(4)], occupants: [UserID(2)])
    static let openRoom = Room(id: RoomID(4), name: "Open", assigned: [], occupants: [])

    static let reconnecting = SessionUser(
        id: UserID(7), name: tricky, identity: "ana@example.com", claim: .participant, isManager: true,
        location: .room(RoomID(3)), presence: .reconnecting(until: Instant(milliseconds: 1_700_000_123_456)), joinedAt: t0)
    static let plain = SessionUser(id: UserID(2), name: "Bo", identity: nil, claim: .host, joinedAt: t0)

    /// At least one of every `Event` case, and both sides of each optional.
    static let events: [Event] = [
        .sessionStarted(SessionStarted(name: "Class", password: "p/w\"", sessionKey: nil, createdAt: t0, limits: limits, settings: settings)),
        .sessionStarted(SessionStarted(name: "K", password: nil, sessionKey: "key", createdAt: t0, limits: limits, settings: .standard)),
        .userJoined(reconnecting, becomesHost: false),
        .userJoined(plain, becomesHost: true),
        .userLeft(UserID(7), reason: .timedOut, newHost: UserID(2)),
        .userLeft(UserID(7), reason: .left, newHost: nil),
        .userLeft(UserID(7), reason: .removed, newHost: nil),
        .sessionEnded(.endedByHost),
        .sessionEnded(.everyoneLeft),
        .hostChanged(from: nil, to: UserID(2)),
        .hostChanged(from: UserID(1), to: UserID(2)),
        .managerChanged(UserID(3), isManager: false),
        .userRenamed(UserID(3), name: tricky),
        .userReconnecting(UserID(3), until: Instant(milliseconds: -5)),
        .userResumed(UserID(3)),
        .modeChanged(.lecture),
        .settingsChanged(settings),
        .preListChanged([PlannedRoom(name: "Red", assigned: [UserID(2), UserID(3)]), PlannedRoom(name: "Blue")]),
        .preListChanged([]),
        .statusChanged(BreakoutSnapshot(phase: .stopping(until: Instant(seconds: 1_700_000_060)), rooms: [room, openRoom], timer: timer, parent: ParentControl(paused: true))),
        .statusChanged(BreakoutSnapshot(phase: .none, rooms: [], timer: nil, parent: ParentControl())),
        .statusChanged(BreakoutSnapshot(phase: .started, rooms: [room], timer: nil, parent: ParentControl(audioMuted: true, videoMuted: true))),
        .usersMoved([UserMove(user: UserID(2), to: .main), UserMove(user: UserID(3), to: .room(RoomID(1)))]),
        .assignmentsChanged([RoomAssignment(room: RoomID(1), users: [UserID(2)]), RoomAssignment(room: RoomID(2), users: [])]),
        .roomRenamed(RoomID(1), name: "Grün \"B\" / 緑"),
        .invited(Invitation(users: [UserID(5), UserID(6)], room: RoomID(2), by: nil)),
        .invited(Invitation(users: [UserID(5)], room: RoomID(2), by: UserID(1))),
        .invitationRejected(UserID(5), room: RoomID(2)),
        .parentControlChanged(ParentControl(paused: false, audioMuted: true, videoMuted: false)),
        .timerChanged(nil),
        .timerChanged(timer),
        .timerWarning(secondsRemaining: 60),
        .helpRequested(HelpRequest(id: HelpRequestID(4), requester: UserID(5), requesterName: tricky, room: RoomID(2), roomName: "Blue")),
        .helpAnswered(HelpRequestID(4), requester: UserID(5), result: .managerJoining, by: UserID(1)),
        .helpAnswered(HelpRequestID(4), requester: UserID(5), result: .busy, by: nil),
        .chatMessage(ChatMessage(id: MessageID(9), from: UserID(5), scope: .room(.main), text: tricky, sentAt: t0)),
        .chatMessage(ChatMessage(id: MessageID(10), from: UserID(5), scope: .room(.room(RoomID(2))), text: "hi", sentAt: t0)),
        .chatMessage(ChatMessage(id: MessageID(11), from: UserID(5), scope: .direct(to: UserID(1)), text: "", sentAt: t0)),
        .broadcast(from: nil, text: "Back in 5 minutes / please", at: t0),
        .broadcast(from: UserID(1), text: tricky, at: t0),
        .roleView(
            RoleView(
                user: UserID(2), role: .host, preList: [PlannedRoom(name: tricky, assigned: [UserID(3)])],
                helpRequests: [HelpRequest(id: HelpRequestID(4), requester: UserID(5), requesterName: "Eve", room: RoomID(2), roomName: "Blue")],
                invitations: [PendingInvitation(user: UserID(6), room: RoomID(2))])),
        .roleView(RoleView(user: UserID(3), role: .manager, preList: nil, helpRequests: [], invitations: [])),
        .mediaChanged(UserID(4), publishing: [.audio, .screenShare]),
        .mediaChanged(UserID(4), publishing: []),
        .voiceBroadcast(UserID(2), active: true),
        .voiceBroadcast(UserID(2), active: false),
        .listening(UserID(1), room: RoomID(3), active: true),
        .listening(UserID(1), room: RoomID(3), active: false),
        .recordingChanged(RecordingSet(locations: [.main, .room(RoomID(3))])),
        .recordingChanged(RecordingSet(everyRoom: true)),
    ]

    /// A session driven through the real state machine: `users` join (the first is the host),
    /// some become managers, the host plans, commits and starts rooms, someone asks for help.
    static func session(users: Int, rooms: Int = 3) throws -> SessionState {
        var state = SessionState(limits: limits, settings: .standard)
        var now = t0
        var entropy: UInt64 = 7
        func run(_ command: Command, by principal: Principal) throws {
            now = now.adding(seconds: 1)
            entropy &+= 1
            for event in try state.decide(command, by: principal, at: now, entropy: entropy) { state.apply(event) }
        }
        for index in 0..<users {
            let name = index == 0 ? "Host" : index % 7 == 3 ? "User \(index) \"\u{1F600}\" / Ø" : "User \(index)"
            try run(
                .join(JoinRequest(sessionName: "Class", userName: name, claim: index == 0 ? .host : .participant,
                                  userIdentity: index % 2 == 0 ? "user\(index)@example.com" : nil)),
                by: .server)
        }
        let host = UserID(1)
        if users > 2 { try run(.makeManager(UserID(2)), by: .user(host)) }
        try run(.addToPreList((1...rooms).map { "Room \($0)" }), by: .user(host))
        try run(.commit, by: .user(host))
        try run(.start(StartOptions(durationSeconds: 600, autoAssign: true)), by: .user(host))
        // A pre-list for the next round, if the machine allows planning while started.
        try? run(.addToPreList(["Later"]), by: .user(host))
        if users > 4, let roomOfFour = state.users[UserID(4)]?.location, roomOfFour != .main {
            try run(.requestHelp, by: .user(UserID(4)))
        }
        if users > 5 { try run(.connectionLost(UserID(5)), by: .server) }
        // A voice broadcast and a listen-in, so snapshots carry both.
        if users > 2 {
            try run(.startVoiceBroadcast, by: .user(UserID(2)))
            try run(.listenIn(RoomID(1)), by: .user(host))
        }
        return state
    }
}
