import CaucusCore

/// Callbacks for those who prefer a delegate to `CaucusSession.events`. They mirror the
/// seeds' callbacks, arrive on the main actor in the order the events happened, and all
/// have default implementations that do nothing: implement only those you need. When one is
/// called, `session.snapshot` already includes what it reports.
@MainActor
public protocol CaucusSessionDelegate: AnyObject, Sendable {
    func sessionDidJoin(_ session: CaucusSession)
    func session(_ session: CaucusSession, didLeave reason: SessionLeftReason)
    func session(_ session: CaucusSession, usersDidJoin users: [CaucusUser])
    func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser])
    func session(_ session: CaucusSession, connectionStateDidChange state: ConnectionState)

    /// The breakout's status changed, with the full committed list.
    func session(_ session: CaucusSession, subsessionStatusDidChange status: SubsessionStatus, subsessions: [SubsessionKit])
    /// This user gained the subsession-manager powers (nil: lost them). Keep the manager.
    func session(_ session: CaucusSession, didReceiveManagerHandle manager: SubsessionManager?)
    /// This user entered a subsession (nil: returned to the main session). Keep the handle.
    func session(_ session: CaucusSession, didReceiveParticipantHandle participant: SubsessionParticipant?)
    /// A subsession's users changed.
    func session(_ session: CaucusSession, subsessionUsersDidUpdate subsession: SubsessionKit)
    func session(_ session: CaucusSession, didReceiveBroadcast message: String, from sender: CaucusUser?)
    /// A participant asks for help: ignore, or join them.
    func session(_ session: CaucusSession, didReceiveHelpRequest handler: HelpRequestHandler)
    /// The answer to this user's help request.
    func session(_ session: CaucusSession, didReceiveHelpResult result: HelpResult)

    /// The session is private: return its password, or nil to give up the join. Asked only
    /// when `join` was given no password hook of its own.
    func sessionNeedsPassword(_ session: CaucusSession) async -> String?
    /// The password was wrong: return another, or nil to give up the join.
    func sessionPasswordWasWrong(_ session: CaucusSession) async -> String?

    func session(_ session: CaucusSession, didFail error: SessionError)
    /// Every event, including those above.
    func session(_ session: CaucusSession, didReceive event: SessionEvent)
}

extension CaucusSessionDelegate {
    public func sessionDidJoin(_ session: CaucusSession) {}
    public func session(_ session: CaucusSession, didLeave reason: SessionLeftReason) {}
    public func session(_ session: CaucusSession, usersDidJoin users: [CaucusUser]) {}
    public func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser]) {}
    public func session(_ session: CaucusSession, connectionStateDidChange state: ConnectionState) {}
    public func session(_ session: CaucusSession, subsessionStatusDidChange status: SubsessionStatus, subsessions: [SubsessionKit]) {}
    public func session(_ session: CaucusSession, didReceiveManagerHandle manager: SubsessionManager?) {}
    public func session(_ session: CaucusSession, didReceiveParticipantHandle participant: SubsessionParticipant?) {}
    public func session(_ session: CaucusSession, subsessionUsersDidUpdate subsession: SubsessionKit) {}
    public func session(_ session: CaucusSession, didReceiveBroadcast message: String, from sender: CaucusUser?) {}
    public func session(_ session: CaucusSession, didReceiveHelpRequest handler: HelpRequestHandler) {}
    public func session(_ session: CaucusSession, didReceiveHelpResult result: HelpResult) {}
    public func sessionNeedsPassword(_ session: CaucusSession) async -> String? { nil }
    public func sessionPasswordWasWrong(_ session: CaucusSession) async -> String? { nil }
    public func session(_ session: CaucusSession, didFail error: SessionError) {}
    public func session(_ session: CaucusSession, didReceive event: SessionEvent) {}

    /// Calls the callback that matches `event`, then the catch-all.
    func deliver(_ event: SessionEvent, from session: CaucusSession) {
        switch event {
        case .sessionJoined: sessionDidJoin(session)
        case .sessionLeft(let reason): self.session(session, didLeave: reason)
        case .usersJoined(let users): self.session(session, usersDidJoin: users)
        case .usersLeft(let users, _): self.session(session, usersDidLeave: users)
        case .connectionStateChanged(let state): self.session(session, connectionStateDidChange: state)
        case .subsessionStatusChanged(let status, let list): self.session(session, subsessionStatusDidChange: status, subsessions: list)
        case .managerHandle(let manager): self.session(session, didReceiveManagerHandle: manager)
        case .participantHandle(let participant): self.session(session, didReceiveParticipantHandle: participant)
        case .subsessionUsersUpdated(let kit): self.session(session, subsessionUsersDidUpdate: kit)
        case .broadcast(let message, let sender): self.session(session, didReceiveBroadcast: message, from: sender)
        case .helpRequested(let handler): self.session(session, didReceiveHelpRequest: handler)
        case .helpRequestResult(let result): self.session(session, didReceiveHelpResult: result)
        case .error(let error): self.session(session, didFail: error)
        default: break
        }
        self.session(session, didReceive: event)
    }
}
