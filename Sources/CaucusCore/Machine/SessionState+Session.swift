/// Joining, leaving, roles and connections.
extension SessionState {
    func decideFirstJoin(_ request: JoinRequest, at now: Instant) throws(CaucusError) -> [Event] {
        try validate(request)
        let started = SessionStarted(
            name: request.sessionName, password: request.password.flatMap { $0.isEmpty ? nil : $0 },
            sessionKey: request.sessionKey, createdAt: now, limits: limits, settings: settings)
        let user = SessionUser(
            id: UserID(nextUserNumber), name: request.userName, identity: request.userIdentity, claim: request.claim,
            joinedAt: now)
        return [.sessionStarted(started), .userJoined(user, becomesHost: true)]
    }

    func decideJoin(_ request: JoinRequest, _ context: Context) throws(CaucusError) -> [Event] {
        try validate(request)
        guard SessionName.matches(request.sessionName, name) else {
            throw CaucusError(.sessionNameMismatch, "This connection belongs to session '\(name)', not '\(request.sessionName)'.")
        }
        // A token that names a run of the session (its session_key) joins that run only: one
        // kept from a run that ended (a class link's, whose class is its key) opens no later
        // run of the name, whose creator's token named another key.
        if let key = request.sessionKey, let current = sessionKey, key != current {
            throw CaucusError(.sessionEnded, "This token is for another run of '\(name)' (its session_key), which has ended.")
        }
        if let password {
            guard let given = request.password, !given.isEmpty else {
                throw CaucusError(.needPassword, "This session needs a password.")
            }
            guard given == password else { throw CaucusError(.passwordWrong, "The password is wrong.") }
        }
        if let identity = request.userIdentity, removedIdentities.contains(identity) {
            throw CaucusError(.removedFromSession, "The host removed you from this session: this link does not let you back in.")
        }
        guard users.count < limits.maxUsersPerSession else {
            throw CaucusError(.sessionFull, "This session already has \(limits.maxUsersPerSession) users.")
        }
        // One host seat per person: a host token naming the present host's own user_identity
        // is that host arriving from another device, who takes the seat over (the old seat is
        // removed) rather than becoming a second, managing self. The name it leaves is free.
        if request.claim == .host, let identity = request.userIdentity, let present = host, present.claim == .host,
            present.identity == identity
        {
            try requireFreeName(request.userName, for: present.id)
            let user = SessionUser(
                id: UserID(nextUserNumber), name: request.userName, identity: identity, claim: .host, joinedAt: context.now)
            return [.userLeft(present.id, reason: .removed, newHost: nil), .userJoined(user, becomesHost: true)]
        }
        try requireFreeName(request.userName, for: nil)
        // A host token takes the role back from a user who only inherited it; if the present
        // host holds a host token too, the newcomer joins as a manager.
        let currentHostClaimsHost = host?.claim == .host
        let becomesHost = hostID == nil || (request.claim == .host && !currentHostClaimsHost)
        let user = SessionUser(
            id: UserID(nextUserNumber), name: request.userName, identity: request.userIdentity, claim: request.claim,
            isManager: request.claim == .host && !becomesHost, joinedAt: context.now)
        return [.userJoined(user, becomesHost: becomesHost)]
    }

    private func validate(_ request: JoinRequest) throws(CaucusError) {
        try NameRule.validate(request.sessionName, "The session name", emptyCode: .sessionNameEmpty)
        if request.sessionName.limitLength > limits.maxSessionNameLength {
            throw .tooLong(.sessionNameTooLong, "The session name", limit: limits.maxSessionNameLength)
        }
        try validateUserName(request.userName)
        if let password = request.password, password.limitLength > limits.maxPasswordLength {
            throw .tooLong(.passwordTooLong, "The password", limit: limits.maxPasswordLength)
        }
        if let identity = request.userIdentity, identity.limitLength > limits.maxUserIdentityLength {
            throw .tooLong(.userIdentityTooLong, "user_identity", limit: limits.maxUserIdentityLength)
        }
        if let key = request.sessionKey, key.limitLength > limits.maxSessionKeyLength {
            throw .tooLong(.sessionKeyTooLong, "session_key", limit: limits.maxSessionKeyLength)
        }
    }

    private func validateUserName(_ name: String) throws(CaucusError) {
        try NameRule.validate(name, "The user name", emptyCode: .userNameEmpty)
        if name.limitLength > limits.maxUserNameLength {
            throw .tooLong(.userNameTooLong, "The user name", limit: limits.maxUserNameLength)
        }
        if RoleMarkRule.mark(endingWith: name) != nil {
            throw CaucusError(
                .userNameImitatesRole,
                "A name may not end with a role, such as (Host), (Manager) or (you): the role is shown from the session, not from the name.")
        }
    }

    /// Names are unique among present users (a reconnecting one too: the seat is still theirs);
    /// `user` may keep its own name in another case or spacing.
    private func requireFreeName(_ name: String, for user: UserID?) throws(CaucusError) {
        let key = UserNameKey.key(name)
        if let holder = users.values.first(where: { $0.id != user && UserNameKey.key($0.name) == key }) {
            throw CaucusError(.userNameTaken, "Someone here is already called \(holder.name): choose another name (add an initial, say).")
        }
    }

    func decideLeave(endSession: Bool, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        // As in the seed: asking to end the session ends it only if you are the host.
        if endSession && me.id == hostID { return [.sessionEnded(.endedByHost)] }
        return departure(of: me.id, reason: .left)
    }

    /// A user leaves: host passes on if needed, and the session ends with its last user.
    func departure(of id: UserID, reason: LeaveReason) -> [Event] {
        guard users.count > 1 else { return [.userLeft(id, reason: reason, newHost: nil), .sessionEnded(.everyoneLeft)] }
        let newHost = id == hostID ? successor(toHost: id) : nil
        return [.userLeft(id, reason: reason, newHost: newHost)]
    }

    /// The longest-present manager, else the longest-present participant.
    func successor(toHost leaving: UserID) -> UserID? {
        let others = users.values.lazy.filter { $0.id != leaving }
        return (others.first { $0.isManager } ?? others.first)?.id
    }

    func existingUser(_ id: UserID) throws(CaucusError) -> SessionUser {
        guard let user = users[id] else { throw .userNotFound(id) }
        return user
    }

    func decideManager(_ id: UserID, makeManager: Bool) throws(CaucusError) -> [Event] {
        let user = try existingUser(id)
        if id == hostID { throw CaucusError(.targetIsHost, "The host already holds every manager power.") }
        if makeManager && user.isManager { throw CaucusError(.alreadyManager, "\(user.name) is already a manager.") }
        if !makeManager && !user.isManager { throw CaucusError(.notManager, "\(user.name) is not a manager.") }
        return [.managerChanged(id, isManager: makeManager)]
    }

    func decideTransferHost(to id: UserID) throws(CaucusError) -> [Event] {
        _ = try existingUser(id)
        if id == hostID { throw CaucusError(.targetIsHost, "That user is already the host.") }
        return [.hostChanged(from: hostID, to: id)]
    }

    func decideRename(_ id: UserID, to name: String) throws(CaucusError) -> [Event] {
        _ = try existingUser(id)
        try validateUserName(name)
        try requireFreeName(name, for: id)
        return [.userRenamed(id, name: name)]
    }

    func decideRemove(_ id: UserID) throws(CaucusError) -> [Event] {
        _ = try existingUser(id)
        if id == hostID { throw CaucusError(.targetIsHost, "The host cannot be removed; transfer host first or end the session.") }
        return departure(of: id, reason: .removed)
    }

    func decideMode(_ newMode: SessionMode) throws(CaucusError) -> [Event] {
        if newMode == mode { throw CaucusError(.invalidSettings, "The session is already in \(mode.rawValue) mode.") }
        if newMode == .lecture && !rooms.isEmpty {
            throw CaucusError(.breakoutActive, "Withdraw or destroy the subsessions before switching to lecture mode.")
        }
        return [.modeChanged(newMode)]
    }

    func decideSettings(_ new: SessionSettings) throws(CaucusError) -> [Event] {
        guard new != settings else { throw CaucusError(.invalidSettings, "Nothing to change: these are the settings already.") }
        guard (0...limits.maxCountdownSeconds).contains(new.countdownSeconds) else {
            throw CaucusError(.invalidSettings, "countdownSeconds must be between 0 and \(limits.maxCountdownSeconds).")
        }
        guard new.timerWarningSeconds.count <= 10,
            new.timerWarningSeconds.allSatisfy({ (1...limits.maxTimerSeconds).contains($0) })
        else {
            throw CaucusError(
                .invalidSettings, "timerWarningSeconds takes at most 10 values between 1 and \(limits.maxTimerSeconds).")
        }
        return [.settingsChanged(new)]
    }

    func decideConnectionLost(_ id: UserID, _ context: Context) throws(CaucusError) -> [Event] {
        let user = try existingUser(id)
        guard user.presence.isConnected else {
            throw CaucusError(.alreadyReconnecting, "\(user.name) is already reconnecting.")
        }
        return [.userReconnecting(id, until: context.now.adding(seconds: limits.reconnectGraceSeconds))]
    }

    func decideResume(_ id: UserID) throws(CaucusError) -> [Event] {
        let user = try existingUser(id)
        guard !user.presence.isConnected else { throw CaucusError(.notReconnecting, "\(user.name) is connected.") }
        return [.userResumed(id)]
    }
}
