import OrderedCollections

/// A session as one user may see it. The server keeps the whole state; a client keeps this
/// projection, restored from a snapshot and advanced by `apply` of the events it receives.
extension SessionState {
    /// What `viewer` may know of this state: no password, session key or claims, the pre-list
    /// only as the host, help requests and others' invitations only as the host or a manager,
    /// and none of the numbering the server keeps to name what comes next, nor the request
    /// keys it remembers.
    public func visible(to viewer: UserID) -> SessionState {
        var view = self
        let role = role(of: viewer) ?? .participant
        view.password = nil
        view.sessionKey = nil
        for id in users.keys { view.users[id] = users[id]?.withoutClaim }
        if role != .host { view.preList = [] }
        if !role.isManaging {
            view.helpRequests = []
            view.invitations = invitations.filter { $0.key == viewer }
        }
        let fresh = SessionState()
        view.nextUserNumber = fresh.nextUserNumber
        view.nextRoomNumber = fresh.nextRoomNumber
        view.nextHelpNumber = fresh.nextHelpNumber
        view.nextMessageNumber = fresh.nextMessageNumber
        // The server's own bookkeeping: a client decides nothing with it.
        view.requestKeys = [:]
        return view
    }

    /// The session as the snapshot's viewer sees it: `state.visible(to: snapshot.you)` for
    /// the state the snapshot was taken of. A client's copy, to `apply` later events to (not
    /// to `decide` with: it does not know the numbering).
    public init(restoring snapshot: SessionSnapshot) {
        self.init(limits: snapshot.limits, settings: snapshot.settings)
        lifecycle = .live
        name = snapshot.name
        createdAt = snapshot.createdAt
        mode = snapshot.mode
        users = OrderedDictionary(uniqueKeysWithValues: snapshot.users.map { ($0.id, $0.seat) })
        hostID = snapshot.hostID
        preList = snapshot.preList ?? []
        phase = snapshot.breakout.phase
        rooms = snapshot.breakout.rooms
        timer = snapshot.breakout.timer
        parent = snapshot.breakout.parent
        if let everyone = snapshot.invitations {
            invitations = Dictionary(everyone.map { ($0.user, $0.room) }, uniquingKeysWith: { _, last in last })
        } else if let room = snapshot.invitation {
            invitations = [snapshot.you: room]
        }
        helpRequests = snapshot.helpRequests ?? []
        voiceBroadcaster = snapshot.voiceBroadcaster
        listeners = OrderedDictionary((snapshot.listeners ?? []).map { ($0.user, $0.room) }, uniquingKeysWith: { _, last in last })
        recording = snapshot.recording ?? .none
    }
}

extension SessionUser {
    var withoutClaim: SessionUser {
        SessionUser(
            id: id, name: name, identity: identity, claim: nil, isManager: isManager, location: location, presence: presence,
            joinedAt: joinedAt, publishing: publishing)
    }
}
