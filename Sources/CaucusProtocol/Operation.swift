import CaucusCore

/// Every operation a client may send, by its wire name (`"op"`). `docs/protocol.md` documents
/// each; a test checks that the two agree.
public enum Operation: String, Sendable, CaseIterable, Codable {
    // Connection
    case join, resume, ping
    // Session and roles
    case leave, makeManager, revokeManager, transferHost, rename, remove, setMode, updateSettings
    // Plan and commit
    case addToPreList, removeFromPreList, clearPreList, getPreList, preAssign, commit, getCommittedList, withdraw
    case renamePlannedRoom, unassign
    case start, stop, isStarted, broadcast, extendTimer
    // Moving
    case joinRoom, returnToMain, disconnect, assign, returnUser, autoAssign, returnEveryone, clearAll
    case requestHelp, answerHelp
    // Create and invite
    case createRooms, createAndInvite, invite, acceptInvitation, rejectInvitation
    case pauseParent, resumeParent, muteParent, unmuteParent, destroyAll, renameRoom
    // Chat and state
    case chat, getSnapshot
    // Media
    case publish, muteUser
    case mediaOffer, getIceServers
    case startVoiceBroadcast, stopVoiceBroadcast, listenIn, stopListening
    // Recording
    case startRecording, stopRecording
}

/// Reads that are answered from the session's state and change nothing.
public enum Query: String, Sendable, CaseIterable {
    case getPreList, getCommittedList, isStarted, getSnapshot
}
