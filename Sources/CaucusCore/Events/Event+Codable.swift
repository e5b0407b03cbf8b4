/// An event's JSON is one flat object named by `type`, the same in the store and on the wire:
/// `{"type": "usersMoved", "moves": [{"user": 4, "to": 2}]}`. `docs/protocol.md` lists them all.
extension Event: Codable {
    public enum Kind: String, Codable, CaseIterable, Sendable {
        case sessionStarted, userJoined, userLeft, sessionEnded, hostChanged, managerChanged, userRenamed
        case userReconnecting, userResumed, modeChanged, settingsChanged, preListChanged, statusChanged
        case usersMoved, assignmentsChanged, invited, invitationRejected, parentControlChanged, timerChanged
        case timerWarning, helpRequested, helpAnswered, chatMessage, broadcast, roleView, mediaChanged
        case roomRenamed, voiceBroadcast, listening, recordingChanged
    }

    private enum Keys: String, CodingKey {
        case type, session, user, becomesHost, reason, newHost, from, to, isManager, name, until, mode, settings
        case preList, breakout, moves, assignments, invitation, room, parent, timer, secondsRemaining, request
        case requester, result, by, message, text, at, role, helpRequests, invitations, publishing, active
        case locations, everyRoom, stopped
    }

    public var kind: Kind {
        switch self {
        case .sessionStarted: .sessionStarted
        case .userJoined: .userJoined
        case .userLeft: .userLeft
        case .sessionEnded: .sessionEnded
        case .hostChanged: .hostChanged
        case .managerChanged: .managerChanged
        case .userRenamed: .userRenamed
        case .userReconnecting: .userReconnecting
        case .userResumed: .userResumed
        case .modeChanged: .modeChanged
        case .settingsChanged: .settingsChanged
        case .preListChanged: .preListChanged
        case .statusChanged: .statusChanged
        case .usersMoved: .usersMoved
        case .assignmentsChanged: .assignmentsChanged
        case .roomRenamed: .roomRenamed
        case .invited: .invited
        case .invitationRejected: .invitationRejected
        case .parentControlChanged: .parentControlChanged
        case .timerChanged: .timerChanged
        case .timerWarning: .timerWarning
        case .helpRequested: .helpRequested
        case .helpAnswered: .helpAnswered
        case .chatMessage: .chatMessage
        case .broadcast: .broadcast
        case .roleView: .roleView
        case .mediaChanged: .mediaChanged
        case .voiceBroadcast: .voiceBroadcast
        case .listening: .listening
        case .recordingChanged: .recordingChanged
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(kind, forKey: .type)
        switch self {
        case .sessionStarted(let session): try c.encode(session, forKey: .session)
        case .userJoined(let user, let becomesHost):
            try c.encode(user, forKey: .user)
            try c.encode(becomesHost, forKey: .becomesHost)
        case .userLeft(let user, let reason, let newHost):
            try c.encode(user, forKey: .user)
            try c.encode(reason, forKey: .reason)
            try c.encodeIfPresent(newHost, forKey: .newHost)
        case .sessionEnded(let reason): try c.encode(reason, forKey: .reason)
        case .hostChanged(let from, let to):
            try c.encodeIfPresent(from, forKey: .from)
            try c.encode(to, forKey: .to)
        case .managerChanged(let user, let isManager):
            try c.encode(user, forKey: .user)
            try c.encode(isManager, forKey: .isManager)
        case .userRenamed(let user, let name):
            try c.encode(user, forKey: .user)
            try c.encode(name, forKey: .name)
        case .userReconnecting(let user, let until):
            try c.encode(user, forKey: .user)
            try c.encode(until, forKey: .until)
        case .userResumed(let user): try c.encode(user, forKey: .user)
        case .modeChanged(let mode): try c.encode(mode, forKey: .mode)
        case .settingsChanged(let settings): try c.encode(settings, forKey: .settings)
        case .preListChanged(let plan): try c.encode(plan, forKey: .preList)
        case .statusChanged(let snapshot): try c.encode(snapshot, forKey: .breakout)
        case .usersMoved(let moves): try c.encode(moves, forKey: .moves)
        case .assignmentsChanged(let assignments): try c.encode(assignments, forKey: .assignments)
        case .roomRenamed(let room, let name):
            try c.encode(room, forKey: .room)
            try c.encode(name, forKey: .name)
        case .invited(let invitation): try c.encode(invitation, forKey: .invitation)
        case .invitationRejected(let user, let room):
            try c.encode(user, forKey: .user)
            try c.encode(room, forKey: .room)
        case .parentControlChanged(let parent): try c.encode(parent, forKey: .parent)
        case .timerChanged(let timer): try c.encodeIfPresent(timer, forKey: .timer)
        case .timerWarning(let seconds): try c.encode(seconds, forKey: .secondsRemaining)
        case .helpRequested(let request): try c.encode(request, forKey: .request)
        case .helpAnswered(let id, let requester, let result, let by):
            try c.encode(id, forKey: .request)
            try c.encode(requester, forKey: .requester)
            try c.encode(result, forKey: .result)
            try c.encodeIfPresent(by, forKey: .by)
        case .chatMessage(let message): try c.encode(message, forKey: .message)
        case .broadcast(let from, let text, let at):
            try c.encodeIfPresent(from, forKey: .from)
            try c.encode(text, forKey: .text)
            try c.encode(at, forKey: .at)
        case .roleView(let view):
            try c.encode(view.user, forKey: .user)
            try c.encode(view.role, forKey: .role)
            try c.encodeIfPresent(view.preList, forKey: .preList)
            try c.encodeIfPresent(view.helpRequests, forKey: .helpRequests)
            try c.encodeIfPresent(view.invitations, forKey: .invitations)
        case .mediaChanged(let user, let publishing, let by):
            try c.encode(user, forKey: .user)
            try c.encode(publishing, forKey: .publishing)
            try c.encodeIfPresent(by, forKey: .by)
        case .voiceBroadcast(let user, let active):
            try c.encode(user, forKey: .user)
            try c.encode(active, forKey: .active)
        case .listening(let user, let room, let active):
            try c.encode(user, forKey: .user)
            try c.encode(room, forKey: .room)
            try c.encode(active, forKey: .active)
        case .recordingChanged(let set):
            try c.encode(set.locations, forKey: .locations)
            try c.encode(set.everyRoom, forKey: .everyRoom)
            try c.encodeIfPresent(set.stopped, forKey: .stopped)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        switch try c.decode(Kind.self, forKey: .type) {
        case .sessionStarted: self = .sessionStarted(try c.decode(SessionStarted.self, forKey: .session))
        case .userJoined:
            self = .userJoined(try c.decode(SessionUser.self, forKey: .user), becomesHost: try c.decode(Bool.self, forKey: .becomesHost))
        case .userLeft:
            self = .userLeft(
                try c.decode(UserID.self, forKey: .user), reason: try c.decode(LeaveReason.self, forKey: .reason),
                newHost: try c.decodeIfPresent(UserID.self, forKey: .newHost))
        case .sessionEnded: self = .sessionEnded(try c.decode(EndReason.self, forKey: .reason))
        case .hostChanged:
            self = .hostChanged(from: try c.decodeIfPresent(UserID.self, forKey: .from), to: try c.decode(UserID.self, forKey: .to))
        case .managerChanged:
            self = .managerChanged(try c.decode(UserID.self, forKey: .user), isManager: try c.decode(Bool.self, forKey: .isManager))
        case .userRenamed:
            self = .userRenamed(try c.decode(UserID.self, forKey: .user), name: try c.decode(String.self, forKey: .name))
        case .userReconnecting:
            self = .userReconnecting(try c.decode(UserID.self, forKey: .user), until: try c.decode(Instant.self, forKey: .until))
        case .userResumed: self = .userResumed(try c.decode(UserID.self, forKey: .user))
        case .modeChanged: self = .modeChanged(try c.decode(SessionMode.self, forKey: .mode))
        case .settingsChanged: self = .settingsChanged(try c.decode(SessionSettings.self, forKey: .settings))
        case .preListChanged: self = .preListChanged(try c.decode([PlannedRoom].self, forKey: .preList))
        case .statusChanged: self = .statusChanged(try c.decode(BreakoutSnapshot.self, forKey: .breakout))
        case .usersMoved: self = .usersMoved(try c.decode([UserMove].self, forKey: .moves))
        case .assignmentsChanged: self = .assignmentsChanged(try c.decode([RoomAssignment].self, forKey: .assignments))
        case .roomRenamed:
            self = .roomRenamed(try c.decode(RoomID.self, forKey: .room), name: try c.decode(String.self, forKey: .name))
        case .invited: self = .invited(try c.decode(Invitation.self, forKey: .invitation))
        case .invitationRejected:
            self = .invitationRejected(try c.decode(UserID.self, forKey: .user), room: try c.decode(RoomID.self, forKey: .room))
        case .parentControlChanged: self = .parentControlChanged(try c.decode(ParentControl.self, forKey: .parent))
        case .timerChanged: self = .timerChanged(try c.decodeIfPresent(BreakoutTimer.self, forKey: .timer))
        case .timerWarning: self = .timerWarning(secondsRemaining: try c.decode(Int.self, forKey: .secondsRemaining))
        case .helpRequested: self = .helpRequested(try c.decode(HelpRequest.self, forKey: .request))
        case .helpAnswered:
            self = .helpAnswered(
                try c.decode(HelpRequestID.self, forKey: .request), requester: try c.decode(UserID.self, forKey: .requester),
                result: try c.decode(HelpResult.self, forKey: .result), by: try c.decodeIfPresent(UserID.self, forKey: .by))
        case .chatMessage: self = .chatMessage(try c.decode(ChatMessage.self, forKey: .message))
        case .broadcast:
            self = .broadcast(
                from: try c.decodeIfPresent(UserID.self, forKey: .from), text: try c.decode(String.self, forKey: .text),
                at: try c.decode(Instant.self, forKey: .at))
        case .roleView:
            self = .roleView(
                RoleView(
                    user: try c.decode(UserID.self, forKey: .user), role: try c.decode(Role.self, forKey: .role),
                    preList: try c.decodeIfPresent([PlannedRoom].self, forKey: .preList),
                    helpRequests: try c.decodeIfPresent([HelpRequest].self, forKey: .helpRequests),
                    invitations: try c.decodeIfPresent([PendingInvitation].self, forKey: .invitations)))
        case .mediaChanged:
            self = .mediaChanged(
                try c.decode(UserID.self, forKey: .user), publishing: try c.decode(MediaKinds.self, forKey: .publishing),
                by: try c.decodeIfPresent(UserID.self, forKey: .by))
        case .voiceBroadcast:
            self = .voiceBroadcast(try c.decode(UserID.self, forKey: .user), active: try c.decode(Bool.self, forKey: .active))
        case .listening:
            self = .listening(
                try c.decode(UserID.self, forKey: .user), room: try c.decode(RoomID.self, forKey: .room),
                active: try c.decode(Bool.self, forKey: .active))
        case .recordingChanged:
            self = .recordingChanged(
                RecordingSet(
                    locations: try c.decode([Location].self, forKey: .locations), everyRoom: try c.decode(Bool.self, forKey: .everyRoom),
                    stopped: try c.decodeIfPresent(RecordingStop.self, forKey: .stopped)))
        }
    }
}
