/// Who may issue a command.
public enum Authority: String, Sendable, CaseIterable {
    /// Only the server (joins, the clock, dropped connections).
    case server
    case host
    /// The host and managers.
    case managers
    /// Whoever the session's `roomCreators` setting admits.
    case roomCreators
    /// The host, and managers when the session's `managersMayRecord` setting allows.
    case recorders
    /// Any joined user.
    case anyUser
}

extension Command {
    public var authority: Authority {
        switch self {
        case .join, .connectionLost, .resume, .tick, .recordingFailed:
            .server
        case .endSession, .makeManager, .revokeManager, .transferHost, .rename, .remove, .setMode, .updateSettings,
            .addToPreList, .removeFromPreList, .clearPreList, .preAssign, .commit, .withdraw,
            .renamePlannedRoom, .unassign:
            .host
        case .start, .stop, .broadcast, .extendTimer, .assign, .returnUser, .autoAssign, .returnEveryone, .answerHelp,
            .invite, .pauseParent, .resumeParent, .muteParent, .unmuteParent, .destroyAll, .renameRoom,
            .startVoiceBroadcast, .stopVoiceBroadcast, .listenIn, .stopListening, .muteUser:
            .managers
        case .createRooms, .createAndInvite:
            .roomCreators
        case .startRecording, .stopRecording:
            .recorders
        case .leave, .joinRoom, .returnToMain, .requestHelp, .acceptInvitation, .rejectInvitation, .chat, .publish:
            .anyUser
        }
    }

    /// Commands that act on the caller's own seat, so the server cannot issue them.
    public var needsOwnSeat: Bool {
        switch self {
        case .leave, .joinRoom, .returnToMain, .requestHelp, .acceptInvitation, .rejectInvitation, .chat, .answerHelp,
            .publish, .startVoiceBroadcast, .listenIn, .stopListening, .muteUser:
            true
        default:
            false
        }
    }

    /// Commands that lecture mode refuses with `lectureMode`.
    public var isBreakoutOperation: Bool {
        switch self {
        case .addToPreList, .removeFromPreList, .clearPreList, .preAssign, .commit, .withdraw, .start, .stop,
            .broadcast, .extendTimer, .joinRoom, .returnToMain, .assign, .returnUser, .autoAssign, .returnEveryone,
            .requestHelp, .answerHelp, .createRooms, .createAndInvite, .invite, .acceptInvitation, .rejectInvitation,
            .pauseParent, .resumeParent, .muteParent, .unmuteParent, .destroyAll, .renamePlannedRoom, .unassign,
            .renameRoom, .listenIn, .stopListening:
            true
        case .join, .leave, .endSession, .makeManager, .revokeManager, .transferHost, .rename, .remove, .setMode,
            .updateSettings, .connectionLost, .resume, .tick, .chat, .publish, .startVoiceBroadcast, .stopVoiceBroadcast,
            .muteUser, .startRecording, .stopRecording, .recordingFailed:
            false
        }
    }

    /// A short verb phrase for messages: "Only the host may commit the list."
    public var operationName: String {
        switch self {
        case .join: "join"
        case .leave: "leave"
        case .endSession: "end the session"
        case .makeManager: "make a manager"
        case .revokeManager: "revoke a manager"
        case .transferHost: "transfer host"
        case .rename: "rename another user"
        case .remove: "remove a user"
        case .setMode: "change the session mode"
        case .updateSettings: "change the session settings"
        case .connectionLost: "report a dropped connection"
        case .resume: "resume a seat"
        case .tick: "advance the clock"
        case .addToPreList: "add to the pre-list"
        case .removeFromPreList: "remove from the pre-list"
        case .clearPreList: "clear the pre-list"
        case .preAssign: "pre-assign users"
        case .renamePlannedRoom: "rename a planned subsession"
        case .unassign: "take users out of the plan"
        case .commit: "commit the subsession list"
        case .withdraw: "withdraw the subsession list"
        case .start: "start subsessions"
        case .stop: "stop subsessions"
        case .broadcast: "broadcast"
        case .extendTimer: "extend the timer"
        case .joinRoom: "join a subsession"
        case .returnToMain: "return to the main session"
        case .assign: "assign users"
        case .returnUser: "send a user back"
        case .autoAssign: "auto-assign users"
        case .returnEveryone: "send everyone back"
        case .requestHelp: "request help"
        case .answerHelp: "answer a help request"
        case .createRooms: "create rooms"
        case .createAndInvite: "create rooms and invite"
        case .invite: "invite users"
        case .acceptInvitation: "accept an invitation"
        case .rejectInvitation: "reject an invitation"
        case .pauseParent: "pause the main session"
        case .resumeParent: "resume the main session"
        case .muteParent: "mute the main session"
        case .unmuteParent: "unmute the main session"
        case .destroyAll: "destroy all rooms"
        case .renameRoom: "rename a room"
        case .chat: "chat"
        case .publish: "publish media"
        case .muteUser: "mute another user"
        case .startVoiceBroadcast: "broadcast their voice"
        case .stopVoiceBroadcast: "stop a voice broadcast"
        case .listenIn: "listen in to a subsession"
        case .stopListening: "stop listening in"
        case .startRecording: "start recording"
        case .stopRecording: "stop recording"
        case .recordingFailed: "report a failed recording"
        }
    }
}
