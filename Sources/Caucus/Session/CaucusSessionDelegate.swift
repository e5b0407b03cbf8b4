import CaucusCore

/// Callbacks for those who prefer a delegate to `CaucusSession.events`: one for each kind of
/// `SessionEvent`, named after the seeds' callbacks where they have one. They arrive on the
/// main actor in the order the events happened, and all but one have default implementations
/// that do nothing: implement only those you need. When one is called, `session.snapshot`
/// already includes what it reports. After the specific callback comes the catch-all,
/// `session(_:didReceive:)`, with the event itself.
///
/// The exception is `session(_:usersDidLeave:reason:)`, which every delegate implements (empty
/// if it does not care): it gained `reason:`, and a default would let a delegate written for
/// the old shape, `session(_:usersDidLeave:)`, compile and never be called. Without one, such
/// a delegate does not compile, and the error names the method to write. (Swift does not warn
/// about implementing a deprecated requirement, so deprecating the old shape would not show.)
///
/// A private session's password is asked of `sessionNeedsPassword` and
/// `sessionPasswordWasWrong` (unless `join` was given a hook of its own): those are the
/// callbacks of the `needPassword` and `passwordWrong` events.
@MainActor
public protocol CaucusSessionDelegate: AnyObject, Sendable {
    // MARK: Session

    /// This user joined; `session.snapshot` is the session as it was then.
    func sessionDidJoin(_ session: CaucusSession)
    func session(_ session: CaucusSession, didLeave reason: SessionLeftReason)
    func session(_ session: CaucusSession, connectionStateDidChange state: ConnectionState)
    /// Something failed outside any call (a resume refused, an unreadable frame).
    func session(_ session: CaucusSession, didFail error: SessionError)
    /// After a long disconnection the SDK took a fresh snapshot: it is right, but the events
    /// in between were not delivered. Redraw from it.
    func session(_ session: CaucusSession, didResynchronize snapshot: CaucusSession.Snapshot)

    /// The session is private: return its password, or nil to give up the join. Asked only
    /// when `join` was given no password hook of its own.
    func sessionNeedsPassword(_ session: CaucusSession) async -> String?
    /// The password was wrong: return another, or nil to give up the join.
    func sessionPasswordWasWrong(_ session: CaucusSession) async -> String?

    // MARK: Users

    func session(_ session: CaucusSession, usersDidJoin users: [CaucusUser])
    /// Users left the session: `reason` says whether they left, were removed, or timed out.
    /// No default: see the protocol's documentation.
    func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser], reason: LeaveReason)
    /// The host role passed from `oldHost` (nil if they had left) to `newHost`.
    func session(_ session: CaucusSession, hostDidChangeFrom oldHost: CaucusUser?, to newHost: CaucusUser)
    /// A user became or stopped being a manager (see their `role`).
    func session(_ session: CaucusSession, managerDidChange user: CaucusUser)
    /// A user has a new name (their `name`).
    func session(_ session: CaucusSession, userWasRenamed user: CaucusUser)
    /// A user's connection dropped or came back (see their `isConnected`).
    func session(_ session: CaucusSession, userConnectionDidChange user: CaucusUser)
    /// A user started or stopped publishing audio, video or a screen share (their `publishing`).
    func session(_ session: CaucusSession, mediaDidChange user: CaucusUser)
    /// A host or manager (`by`) turned off `kinds` of `user`'s media; if `user` is this user,
    /// the SDK has stopped sending them (turn them on again with the helpers).
    func session(_ session: CaucusSession, mediaWasMuted user: CaucusUser, kinds: MediaKinds, by: CaucusUser?)
    /// A host or manager began (`active`) or ceased broadcasting its voice to every room.
    func session(_ session: CaucusSession, voiceBroadcastDidChange broadcaster: CaucusUser, active: Bool)
    /// A host or manager began (`active`) or ceased listening in to `room`.
    func session(_ session: CaucusSession, listeningDidChange listener: CaucusUser, in room: SubsessionKit, active: Bool)
    /// What the session records changed, or this user moved into or out of a recorded
    /// location; `recordingMe`: this user's location is recorded now.
    func session(_ session: CaucusSession, recordingDidChange locations: [CaucusLocation], recordingMe: Bool)
    /// The server stopped recording `locations` on its own (a full disk, a quota), after the
    /// `recordingDidChange` that no longer records them; the session goes on.
    func session(_ session: CaucusSession, recordingDidStop locations: [CaucusLocation], reason: RecordingStopReason)
    func session(_ session: CaucusSession, modeDidChange mode: SessionMode)
    func session(_ session: CaucusSession, settingsDidChange settings: SessionSettings)

    // MARK: Subsessions

    /// The host's pre-list changed (host only).
    func session(_ session: CaucusSession, preListDidChange preList: [PlannedRoom])
    /// The breakout's status changed, with the full committed list.
    func session(_ session: CaucusSession, subsessionStatusDidChange status: SubsessionStatus, subsessions: [SubsessionKit])
    /// This user gained the subsession-manager powers (nil: lost them). Keep the manager.
    func session(_ session: CaucusSession, didReceiveManagerHandle manager: SubsessionManager?)
    /// This user entered a subsession (nil: returned to the main session). Keep the handle.
    func session(_ session: CaucusSession, didReceiveParticipantHandle participant: SubsessionParticipant?)
    /// A subsession's users changed.
    func session(_ session: CaucusSession, subsessionUsersDidUpdate subsession: SubsessionKit)
    /// Users moved between rooms (one call however many moved).
    func session(_ session: CaucusSession, usersDidMove moves: [UserMove])
    /// This user moved: to a subsession, or (nil) to the main session.
    func session(_ session: CaucusSession, didMoveTo subsession: SubsessionKit?)
    /// Who the committed subsessions expect changed (while they are not open).
    func session(_ session: CaucusSession, assignmentsDidChange subsessions: [SubsessionKit])
    /// A committed subsession was renamed (the kit has its new name).
    func session(_ session: CaucusSession, subsessionWasRenamed subsession: SubsessionKit)
    /// This user is invited to a subsession: accept or reject it with `breakoutRooms`.
    func session(_ session: CaucusSession, didReceiveInvitationTo subsession: SubsessionKit, from inviter: CaucusUser?)
    /// Users were invited to a subsession (host and managers).
    func session(_ session: CaucusSession, usersWereInvited users: [CaucusUser], to subsession: SubsessionKit, by inviter: CaucusUser?)
    /// A user declined an invitation (host and managers).
    func session(_ session: CaucusSession, invitationWasRejectedBy user: CaucusUser, for subsession: SubsessionKit)
    /// The parent (main) room was paused, resumed, muted or unmuted.
    func session(_ session: CaucusSession, parentControlDidChange control: ParentControl)
    /// The timer started, was extended or ended (nil).
    func session(_ session: CaucusSession, timerDidChange timer: BreakoutTimer?)
    /// The timer ends in `remaining`.
    func session(_ session: CaucusSession, timerWillEndIn remaining: Duration)
    /// A message from the main session to everyone.
    func session(_ session: CaucusSession, didReceiveBroadcast message: String, from sender: CaucusUser?)

    // MARK: Help

    /// A participant asks for help: ignore, or join them (host and managers).
    func session(_ session: CaucusSession, didReceiveHelpRequest handler: HelpRequestHandler)
    /// The answer to this user's help request.
    func session(_ session: CaucusSession, didReceiveHelpResult result: HelpResult)
    /// Someone's help request was answered (host and managers).
    func session(_ session: CaucusSession, helpRequestWasAnswered request: HelpRequestID, result: HelpResult, by answerer: CaucusUser?)

    // MARK: Chat

    /// A message to this user's room, or a direct message.
    func session(_ session: CaucusSession, didReceiveChatMessage message: ChatMessage, from sender: CaucusUser?)

    // MARK: Everything

    /// Every event, after its own callback.
    func session(_ session: CaucusSession, didReceive event: SessionEvent)
}

extension CaucusSessionDelegate {
    public func sessionDidJoin(_ session: CaucusSession) {}
    public func session(_ session: CaucusSession, didLeave reason: SessionLeftReason) {}
    public func session(_ session: CaucusSession, connectionStateDidChange state: ConnectionState) {}
    public func session(_ session: CaucusSession, didFail error: SessionError) {}
    public func session(_ session: CaucusSession, didResynchronize snapshot: CaucusSession.Snapshot) {}
    public func sessionNeedsPassword(_ session: CaucusSession) async -> String? { nil }
    public func sessionPasswordWasWrong(_ session: CaucusSession) async -> String? { nil }

    public func session(_ session: CaucusSession, usersDidJoin users: [CaucusUser]) {}
    public func session(_ session: CaucusSession, hostDidChangeFrom oldHost: CaucusUser?, to newHost: CaucusUser) {}
    public func session(_ session: CaucusSession, managerDidChange user: CaucusUser) {}
    public func session(_ session: CaucusSession, userWasRenamed user: CaucusUser) {}
    public func session(_ session: CaucusSession, userConnectionDidChange user: CaucusUser) {}
    public func session(_ session: CaucusSession, mediaDidChange user: CaucusUser) {}
    public func session(_ session: CaucusSession, mediaWasMuted user: CaucusUser, kinds: MediaKinds, by: CaucusUser?) {}
    public func session(_ session: CaucusSession, voiceBroadcastDidChange broadcaster: CaucusUser, active: Bool) {}
    public func session(_ session: CaucusSession, listeningDidChange listener: CaucusUser, in room: SubsessionKit, active: Bool) {}
    public func session(_ session: CaucusSession, recordingDidChange locations: [CaucusLocation], recordingMe: Bool) {}
    public func session(_ session: CaucusSession, recordingDidStop locations: [CaucusLocation], reason: RecordingStopReason) {}
    public func session(_ session: CaucusSession, modeDidChange mode: SessionMode) {}
    public func session(_ session: CaucusSession, settingsDidChange settings: SessionSettings) {}

    public func session(_ session: CaucusSession, preListDidChange preList: [PlannedRoom]) {}
    public func session(_ session: CaucusSession, subsessionStatusDidChange status: SubsessionStatus, subsessions: [SubsessionKit]) {}
    public func session(_ session: CaucusSession, didReceiveManagerHandle manager: SubsessionManager?) {}
    public func session(_ session: CaucusSession, didReceiveParticipantHandle participant: SubsessionParticipant?) {}
    public func session(_ session: CaucusSession, subsessionUsersDidUpdate subsession: SubsessionKit) {}
    public func session(_ session: CaucusSession, usersDidMove moves: [UserMove]) {}
    public func session(_ session: CaucusSession, didMoveTo subsession: SubsessionKit?) {}
    public func session(_ session: CaucusSession, assignmentsDidChange subsessions: [SubsessionKit]) {}
    public func session(_ session: CaucusSession, subsessionWasRenamed subsession: SubsessionKit) {}
    public func session(_ session: CaucusSession, didReceiveInvitationTo subsession: SubsessionKit, from inviter: CaucusUser?) {}
    public func session(
        _ session: CaucusSession, usersWereInvited users: [CaucusUser], to subsession: SubsessionKit, by inviter: CaucusUser?
    ) {}
    public func session(_ session: CaucusSession, invitationWasRejectedBy user: CaucusUser, for subsession: SubsessionKit) {}
    public func session(_ session: CaucusSession, parentControlDidChange control: ParentControl) {}
    public func session(_ session: CaucusSession, timerDidChange timer: BreakoutTimer?) {}
    public func session(_ session: CaucusSession, timerWillEndIn remaining: Duration) {}
    public func session(_ session: CaucusSession, didReceiveBroadcast message: String, from sender: CaucusUser?) {}

    public func session(_ session: CaucusSession, didReceiveHelpRequest handler: HelpRequestHandler) {}
    public func session(_ session: CaucusSession, didReceiveHelpResult result: HelpResult) {}
    public func session(
        _ session: CaucusSession, helpRequestWasAnswered request: HelpRequestID, result: HelpResult, by answerer: CaucusUser?
    ) {}

    public func session(_ session: CaucusSession, didReceiveChatMessage message: ChatMessage, from sender: CaucusUser?) {}

    public func session(_ session: CaucusSession, didReceive event: SessionEvent) {}
}
