import CaucusCore

extension CaucusSessionDelegate {
    /// Calls the callback that matches `event`, then the catch-all. The switch has no
    /// `default`: an event kind added without its callback does not compile.
    func deliver(_ event: SessionEvent, from session: CaucusSession) {
        switch event {
        case .sessionJoined: sessionDidJoin(session)
        case .sessionLeft(let reason): self.session(session, didLeave: reason)
        case .connectionStateChanged(let state): self.session(session, connectionStateDidChange: state)
        case .needPassword, .passwordWrong:
            // Their callbacks are the password askers, which `join` calls for an answer.
            break
        case .error(let error): self.session(session, didFail: error)
        case .resynchronized(let snapshot): self.session(session, didResynchronize: snapshot)

        case .usersJoined(let users): self.session(session, usersDidJoin: users)
        case .usersLeft(let users, let reason): self.session(session, usersDidLeave: users, reason: reason)
        case .hostChanged(let from, let to): self.session(session, hostDidChangeFrom: from, to: to)
        case .managerChanged(let user): self.session(session, managerDidChange: user)
        case .userRenamed(let user): self.session(session, userWasRenamed: user)
        case .userConnectionChanged(let user): self.session(session, userConnectionDidChange: user)
        case .mediaChanged(let user): self.session(session, mediaDidChange: user)
        case .mediaMuted(let user, let kinds, let by): self.session(session, mediaWasMuted: user, kinds: kinds, by: by)
        case .voiceBroadcastChanged(let user, let active): self.session(session, voiceBroadcastDidChange: user, active: active)
        case .listeningChanged(let user, let room, let active): self.session(session, listeningDidChange: user, in: room, active: active)
        case .recordingChanged(let locations, let recordingMe): self.session(session, recordingDidChange: locations, recordingMe: recordingMe)
        case .recordingStopped(let locations, let reason): self.session(session, recordingDidStop: locations, reason: reason)
        case .modeChanged(let mode): self.session(session, modeDidChange: mode)
        case .settingsChanged(let settings): self.session(session, settingsDidChange: settings)

        case .preListChanged(let plan): self.session(session, preListDidChange: plan)
        case .subsessionStatusChanged(let status, let list): self.session(session, subsessionStatusDidChange: status, subsessions: list)
        case .managerHandle(let manager): self.session(session, didReceiveManagerHandle: manager)
        case .participantHandle(let participant): self.session(session, didReceiveParticipantHandle: participant)
        case .subsessionUsersUpdated(let kit): self.session(session, subsessionUsersDidUpdate: kit)
        case .usersMoved(let moves): self.session(session, usersDidMove: moves)
        case .moved(let kit): self.session(session, didMoveTo: kit)
        case .assignmentsChanged(let kits): self.session(session, assignmentsDidChange: kits)
        case .subsessionRenamed(let kit): self.session(session, subsessionWasRenamed: kit)
        case .invited(let kit, let by): self.session(session, didReceiveInvitationTo: kit, from: by)
        case .usersInvited(let users, let kit, let by): self.session(session, usersWereInvited: users, to: kit, by: by)
        case .invitationRejected(let user, let kit): self.session(session, invitationWasRejectedBy: user, for: kit)
        case .parentControlChanged(let control): self.session(session, parentControlDidChange: control)
        case .timerChanged(let timer): self.session(session, timerDidChange: timer)
        case .timerWarning(let remaining): self.session(session, timerWillEndIn: remaining)
        case .broadcast(let message, let sender): self.session(session, didReceiveBroadcast: message, from: sender)

        case .helpRequested(let handler): self.session(session, didReceiveHelpRequest: handler)
        case .helpRequestResult(let result): self.session(session, didReceiveHelpResult: result)
        case .helpRequestAnswered(let id, let result, let by): self.session(session, helpRequestWasAnswered: id, result: result, by: by)

        case .chatMessage(let message, let sender): self.session(session, didReceiveChatMessage: message, from: sender)
        }
        self.session(session, didReceive: event)
    }
}
