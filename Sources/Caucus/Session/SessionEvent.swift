import CaucusCore

/// Everything that happens, as `CaucusSession.events` delivers it, in the order the server
/// decided it. The snapshot already includes each event when it is delivered.
///
/// Events are values and compare equal when they say the same thing: the same users, kits,
/// help requests, snapshot or message. Manager and participant handles, which carry no more
/// than whom they act for, compare by that session (and the participant's subsession).
public enum SessionEvent: Sendable, Equatable {
    // MARK: Session

    /// This user joined; the snapshot is the session as it was then.
    case sessionJoined(CaucusSession.Snapshot)
    /// This user is no longer in the session.
    case sessionLeft(SessionLeftReason)
    case connectionStateChanged(ConnectionState)
    /// The session is private and no password was given (the password hook is asked next).
    case needPassword
    /// The password was wrong (the password hook is asked next).
    case passwordWrong
    /// Something failed outside any call (a resume refused, an unreadable frame).
    case error(SessionError)
    /// After a long disconnection the server sent a fresh snapshot instead of the missed
    /// events: the snapshot is right, but events in between were not delivered.
    case resynchronized(CaucusSession.Snapshot)

    // MARK: Users

    case usersJoined([CaucusUser])
    case usersLeft([CaucusUser], reason: LeaveReason)
    case hostChanged(from: CaucusUser?, to: CaucusUser)
    /// A user became or stopped being a manager (see their `role`).
    case managerChanged(CaucusUser)
    case userRenamed(CaucusUser)
    /// A user's connection dropped or came back (see their `isConnected`).
    case userConnectionChanged(CaucusUser)
    case modeChanged(SessionMode)
    case settingsChanged(SessionSettings)

    // MARK: Subsessions

    /// The host's pre-list changed (host only).
    case preListChanged([PlannedRoom])
    /// The breakout's status changed; the full committed list comes with it.
    case subsessionStatusChanged(SubsessionStatus, [SubsessionKit])
    /// This user gained (or, with nil, lost) the subsession-manager powers.
    case managerHandle(SubsessionManager?)
    /// This user entered a subsession (or, with nil, left it for the main session).
    case participantHandle(SubsessionParticipant?)
    /// A subsession's users changed.
    case subsessionUsersUpdated(SubsessionKit)
    /// Users moved between rooms (one event however many moved).
    case usersMoved([UserMove])
    /// This user moved: to a subsession, or (nil) to the main session.
    case moved(to: SubsessionKit?)
    /// Who the committed subsessions expect changed (while they are not open).
    case assignmentsChanged([SubsessionKit])
    /// A committed subsession was renamed (the kit has its new name).
    case subsessionRenamed(SubsessionKit)
    /// This user is invited to a room.
    case invited(to: SubsessionKit, by: CaucusUser?)
    /// Users were invited to a room (host and managers).
    case usersInvited([CaucusUser], to: SubsessionKit, by: CaucusUser?)
    /// A user declined an invitation (host and managers).
    case invitationRejected(CaucusUser, SubsessionKit)
    case parentControlChanged(ParentControl)
    /// The timer started, changed (extended) or ended (nil).
    case timerChanged(BreakoutTimer?)
    /// The timer ends in `remaining` (one of the session's `timerWarningSeconds`).
    case timerWarning(remaining: Duration)
    /// Someone asks for help (host and managers): answer with the handler.
    case helpRequested(HelpRequestHandler)
    /// The answer to this user's help request.
    case helpRequestResult(HelpResult)
    /// Someone's help request was answered (host and managers).
    case helpRequestAnswered(HelpRequestID, result: HelpResult, by: CaucusUser?)
    /// A message from the main session to everyone.
    case broadcast(String, from: CaucusUser?)

    // MARK: Media

    /// A user started or stopped publishing audio, video or a screen share (`publishing`).
    case mediaChanged(CaucusUser)
    /// A host or manager (`by`) turned off `kinds` of a user's media: its microphone, camera
    /// and/or screen share (it follows the user's `mediaChanged`). When the user is this
    /// user, the SDK has stopped sending them; the user turns them on again itself
    /// (``AudioHelper/unmute()``, ``VideoHelper/start()``, ``ShareHelper/start()``).
    case mediaMuted(CaucusUser, kinds: MediaKinds, by: CaucusUser?)
    /// A host or manager began (`active`) or ceased speaking to every room at once; everyone
    /// hears it while it lasts.
    case voiceBroadcastChanged(CaucusUser, active: Bool)
    /// A host or manager began (`active`) or ceased listening in to a room without joining it.
    case listeningChanged(CaucusUser, SubsessionKit, active: Bool)

    // MARK: Recording

    /// What the session records changed (`locations`, the main session first), or this user
    /// moved into or out of a recorded location. `recordingMe`: this user's location is
    /// recorded now. The snapshot's ``CaucusSession/Snapshot/isRecordingMe`` says the same.
    case recordingChanged(locations: [CaucusLocation], recordingMe: Bool)
    /// The server stopped recording `locations` on its own, for `reason` (a full disk, a
    /// quota); the session goes on. Comes after the ``recordingChanged(locations:recordingMe:)``
    /// that no longer records them. The snapshot's ``CaucusSession/Snapshot/recordingStop``
    /// keeps it until recording is next started or stopped.
    case recordingStopped(locations: [CaucusLocation], reason: RecordingStopReason)

    // MARK: Chat

    /// A message to this user's room, or a direct message.
    case chatMessage(ChatMessage, from: CaucusUser?)
}
