/// Everything a session can be asked to do. Reads (pre-list, committed list, is-started)
/// are answered from `SessionState` directly and are not commands.
public enum Command: Hashable, Sendable {
    // Session and roles
    case join(JoinRequest)
    case leave(endSession: Bool)
    case endSession
    case makeManager(UserID)
    case revokeManager(UserID)
    case transferHost(to: UserID)
    case rename(UserID, to: String)
    case remove(UserID)
    case setMode(SessionMode)
    case updateSettings(SessionSettings)

    // Connection and clock (server only)
    case connectionLost(UserID)
    case resume(UserID)
    case tick

    // Plan and commit
    case addToPreList([String])
    case removeFromPreList([String])
    case clearPreList
    case preAssign([UserID], to: String)
    /// Renames a planned room, found by its current name.
    case renamePlannedRoom(String, to: String)
    /// Takes users out of the plan: out of the pre-list's rooms and the committed rooms'
    /// assignments. They stay where they are now.
    case unassign([UserID])
    case commit
    case withdraw
    case start(StartOptions)
    case stop(countdownSeconds: Int?)
    case broadcast(String)
    case extendTimer(seconds: Int)

    // Moving between rooms
    case joinRoom(RoomID)
    case returnToMain
    case assign([UserID], to: RoomID)
    case returnUser(UserID)
    case autoAssign
    case returnEveryone
    case requestHelp
    case answerHelp(HelpRequestID, HelpAnswer)

    // Create and invite
    case createRooms(RoomDefinition, count: Int)
    case createAndInvite(RoomDefinition, count: Int, forceJoin: Bool)
    case invite([UserID], to: RoomID, forceJoin: Bool)
    case acceptInvitation(RoomID)
    case rejectInvitation(RoomID)
    case pauseParent
    case resumeParent
    case muteParent(audio: Bool, video: Bool)
    case unmuteParent(audio: Bool, video: Bool)
    case destroyAll
    /// Renames a committed room (planned, open or closed), found by its id.
    case renameRoom(RoomID, to: String)

    // Chat
    /// With `key`, applied at most once per key (see `RequestKey`).
    case chat(String, to: ChatTarget, key: RequestKey? = nil)

    // Media
    /// What the caller publishes from now on: the whole set (leaving `audio` out mutes its
    /// microphone).
    case publish(MediaKinds)
    /// The caller (host, or manager for a participant) turns off `kinds` of another user's
    /// publications: that user's microphone, camera and/or screen share. Only the user turns
    /// them on again (`publish`).
    case muteUser(UserID, MediaKinds)
    /// The caller (host or manager) speaks to every room at once: everyone hears its audio.
    case startVoiceBroadcast
    /// Ends the voice broadcast (the broadcaster's own, or anyone's for the host).
    case stopVoiceBroadcast
    /// The caller (host or manager) hears and sees this room instead of its own location,
    /// without joining it; the room sees that it listens.
    case listenIn(RoomID)
    case stopListening

    // Recording
    /// Records the main session and/or rooms, or every room (now and created later).
    case startRecording(RecordingTarget)
    /// Stops recording locations, or (`.all`) everything.
    case stopRecording(RecordingTarget)
    /// The server could not write these locations' recordings and stops them (server only: no
    /// client or app names it). Locations not recorded are ignored.
    case recordingFailed([Location], RecordingStopReason)
}
