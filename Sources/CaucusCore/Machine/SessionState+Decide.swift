extension SessionState {
    /// Decides what `command`, issued by `principal` at `now`, makes happen. A refusal throws
    /// and leaves everything as it was. `entropy` seeds the random choices (balanced random
    /// distribution); the same inputs always give the same events.
    public func decide(
        _ command: Command, by principal: Principal, at now: Instant, entropy: UInt64 = 0
    ) throws(CaucusError) -> [Event] {
        switch lifecycle {
        case .ended:
            throw .sessionEnded
        case .awaitingFirstJoin:
            guard case .join(let request) = command else { throw .sessionNotStarted }
            guard principal == .server else { throw .notPermitted(command.operationName, needs: "the server") }
            return try decideFirstJoin(request, at: now)
        case .live:
            break
        }
        let caller = try authorize(command, by: principal)
        if command.isBreakoutOperation && mode == .lecture { throw .lectureMode }
        let context = Context(caller: caller, now: now, entropy: entropy)
        return withRoleViews(endingMediaRoles(after: try decideLive(command, context)))
    }

    /// Who is acting, as the decision functions see it.
    struct Context {
        /// The acting user; nil when the server acts.
        let caller: SessionUser?
        let now: Instant
        let entropy: UInt64

        var callerID: UserID? { caller?.id }

        /// The caller of a command that acts on its own seat.
        func seat() throws(CaucusError) -> SessionUser {
            guard let caller else { throw .userRequired }
            return caller
        }
    }

    private func authorize(_ command: Command, by principal: Principal) throws(CaucusError) -> SessionUser? {
        guard case .user(let id) = principal else {
            if command.needsOwnSeat { throw .userRequired }
            return nil
        }
        guard let user = users[id] else { throw .userNotFound(id) }
        let role = role(of: user)
        let allowed: Bool
        let needs: String
        switch command.authority {
        case .server:
            (allowed, needs) = (false, "the server")
        case .host:
            // Anyone may rename themselves; renaming others is the host's.
            if case .rename(let target, _) = command, target == id { return user }
            (allowed, needs) = (role == .host, "the host")
        case .managers:
            (allowed, needs) = (role.isManaging, "the host or a manager")
        case .roomCreators:
            (allowed, needs) = (settings.roomCreators.admits(role), Self.describe(settings.roomCreators))
        case .recorders:
            (allowed, needs) = (
                settings.managersMayRecord ? role.isManaging : role == .host,
                settings.managersMayRecord ? "the host or a manager" : "the host (or managers, if the managersMayRecord setting allows)"
            )
        case .anyUser:
            (allowed, needs) = (true, "")
        }
        guard allowed else { throw .notPermitted(command.operationName, needs: needs) }
        return user
    }

    private static func describe(_ creators: RoomCreators) -> String {
        switch creators {
        case .host: "the host"
        case .managers: "the host or a manager"
        case .everyone: "any user"
        }
    }

    private func decideLive(_ command: Command, _ context: Context) throws(CaucusError) -> [Event] {
        switch command {
        case .join(let request): return try decideJoin(request, context)
        case .leave(let endSession): return try decideLeave(endSession: endSession, context)
        case .endSession: return [.sessionEnded(context.caller == nil ? .endedByServer : .endedByHost)]
        case .makeManager(let id): return try decideManager(id, makeManager: true)
        case .revokeManager(let id): return try decideManager(id, makeManager: false)
        case .transferHost(let id): return try decideTransferHost(to: id)
        case .rename(let id, let name): return try decideRename(id, to: name)
        case .remove(let id): return try decideRemove(id)
        case .setMode(let mode): return try decideMode(mode)
        case .updateSettings(let settings): return try decideSettings(settings)
        case .connectionLost(let id): return try decideConnectionLost(id, context)
        case .resume(let id): return try decideResume(id)
        case .tick: return decideTick(context)

        case .addToPreList(let names): return try decideAddToPreList(names)
        case .removeFromPreList(let names): return try decideRemoveFromPreList(names)
        case .clearPreList: return [.preListChanged([])]
        case .preAssign(let ids, let name): return try decidePreAssign(ids, to: name)
        case .renamePlannedRoom(let name, let newName): return try decideRenamePlannedRoom(name, to: newName)
        case .unassign(let ids): return try decideUnassign(ids)
        case .commit: return try decideCommit()
        case .withdraw: return try decideWithdraw()
        case .start(let options): return try decideStart(options, context)
        case .stop(let countdown): return try decideStop(countdown: countdown, context)
        case .broadcast(let text): return try decideBroadcast(text, context)
        case .extendTimer(let seconds): return try decideExtendTimer(seconds, context)

        case .joinRoom(let id): return try decideJoinRoom(id, context)
        case .returnToMain: return try decideReturnToMain(context)
        case .assign(let ids, let room): return try decideAssign(ids, to: room)
        case .returnUser(let id): return try decideReturnUser(id)
        case .autoAssign: return try decideAutoAssign(context)
        case .returnEveryone: return try decideReturnEveryone()
        case .requestHelp: return try decideRequestHelp(context)
        case .answerHelp(let id, let answer): return try decideAnswerHelp(id, answer, context)

        case .createRooms(let definition, let count):
            return try decideCreateRooms(definition, count: count, distribute: nil, context)
        case .createAndInvite(let definition, let count, let forceJoin):
            return try decideCreateRooms(definition, count: count, distribute: forceJoin, context)
        case .invite(let ids, let room, let forceJoin): return try decideInvite(ids, to: room, forceJoin: forceJoin, context)
        case .acceptInvitation(let room): return try decideAcceptInvitation(room, context)
        case .rejectInvitation(let room): return try decideRejectInvitation(room, context)
        case .pauseParent: return try decidePause(true)
        case .resumeParent: return try decidePause(false)
        case .muteParent(let audio, let video): return try decideMute(true, audio: audio, video: video)
        case .unmuteParent(let audio, let video): return try decideMute(false, audio: audio, video: video)
        case .destroyAll: return try decideDestroyAll()
        case .renameRoom(let id, let newName): return try decideRenameRoom(id, to: newName)

        case .chat(let text, let target, let key): return try decideChat(text, to: target, key: key, context)
        case .publish(let kinds): return try decidePublish(kinds, context)
        case .muteUser(let id, let kinds): return try decideMuteUser(id, kinds, context)
        case .startVoiceBroadcast: return try decideStartVoiceBroadcast(context)
        case .stopVoiceBroadcast: return try decideStopVoiceBroadcast(context)
        case .listenIn(let room): return try decideListenIn(room, context)
        case .stopListening: return try decideStopListening(context)
        case .startRecording(let target): return try decideStartRecording(target)
        case .stopRecording(let target): return try decideStopRecording(target)
        case .recordingFailed(let locations, let reason): return decideRecordingFailed(locations, reason: reason)
        }
    }
}
