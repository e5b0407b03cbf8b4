import Caucus
import CaucusCore
import Foundation

/// One readable line per event, e.g. `Ann joined` or `subsessions started: Red (Ann, Ben), Blue (Cat)`.
/// Names come from the snapshot, which already includes the event.
struct EventDescription {
    let snapshot: CaucusSession.Snapshot?

    func line(for event: SessionEvent) -> String? {
        switch event {
        case .sessionJoined(let joined):
            "joined \(joined.sessionName) as \(joined.myself.name) (\(joined.myself.id), \(joined.myRole.rawValue)); "
                + "here: \(names(joined.users)); type `help` for the commands"
        case .sessionLeft(let reason): "left the session: \(describe(reason))"
        case .connectionStateChanged(let state): "connection \(state)"
        case .needPassword: "the session is private: give its --password"
        case .passwordWrong: "wrong password"
        case .error(let error): "error: \(error)"
        case .resynchronized: "resynchronized after a long disconnection (some events were skipped)"
        case .usersJoined(let users): "\(names(users)) joined"
        case .usersLeft(let users, let reason):
            "\(names(users)) \(reason == .removed ? "was removed" : reason == .timedOut ? "timed out" : "left")"
        case .hostChanged(_, let to): "\(to.name) is now the host"
        case .managerChanged(let user): "\(user.name) \(user.isManager ? "is now a manager" : "is no longer a manager")"
        case .userRenamed(let user): "\(user.id) is now called \(user.name)"
        case .userConnectionChanged(let user): "\(user.name) \(user.isConnected ? "is back" : "lost their connection")"
        case .modeChanged(let mode): "mode is now \(mode.rawValue)"
        case .settingsChanged: "settings changed"
        case .preListChanged(let plan):
            "plan: " + (plan.isEmpty ? "empty" : plan.map { entry(name: $0.name, users: $0.assigned.map(name)) }.joined(separator: ", "))
        case .subsessionStatusChanged(let status, let rooms): "subsessions \(status.rawValue): \(list(rooms, status: status))"
        case .managerHandle(let manager): manager == nil ? "you no longer manage subsessions" : "you manage subsessions"
        case .participantHandle: nil  // `moved` says the same
        case .subsessionUsersUpdated(let room): "in \(room.name): \(room.users.isEmpty ? "nobody" : names(room.users))"
        case .usersMoved(let moves):
            moves.map { "\(name($0.user)) moved to \(place($0.to))" }.joined(separator: ", ")
        case .moved(let room): room.map { "you are now in \($0.name)" } ?? "you are back in the main session"
        case .assignmentsChanged(let rooms): "assignments: \(list(rooms, status: .committed))"
        case .subsessionRenamed(let room): "subsession \(room.id) is now called \(room.name)"
        case .invited(let room, let by):
            "\(by?.name ?? "someone") invites you to \(room.name): `accept \(room.name)` or `reject \(room.name)`"
        case .usersInvited(let users, let room, _): "\(names(users)) invited to \(room.name)"
        case .invitationRejected(let user, let room): "\(user.name) declined \(room.name)"
        case .parentControlChanged(let parent): "main session is now \(describe(parent))"
        case .timerChanged(let timer):
            timer.map { "timer: \(Self.seconds($0.remaining())) seconds left" } ?? "timer off"
        case .timerWarning(let remaining): "\(Self.seconds(remaining)) seconds left"
        case .helpRequested(let help):
            "help request \(help.id) from \(help.userName) in \(help.subsessionName): `help-answer \(help.id) join` or `ignore`"
        case .helpRequestResult(let result): "your help request: \(describe(result))"
        case .helpRequestAnswered(let id, let result, let by): "help request \(id) answered by \(by?.name ?? "someone"): \(describe(result))"
        case .broadcast(let text, let from): "broadcast from \(from?.name ?? "the server"): \(text)"
        case .chatMessage(let message, let from): chat(message, from: from)
        case .mediaChanged(let user):
            "\(user.name) publishes \(user.publishing.isEmpty ? "nothing" : user.publishing.kinds.map(\.rawValue).joined(separator: ", "))"
        case .mediaMuted(let user, let kinds, let by):
            "\(by?.name ?? "someone") muted \(user.name)'s \(kinds.kinds.map(\.rawValue).joined(separator: ", "))"
        case .voiceBroadcastChanged(let user, let active):
            active ? "\(user.name) speaks to every room (voice broadcast)" : "\(user.name)'s voice broadcast ended"
        case .listeningChanged(let user, let room, let active):
            "\(user.name) \(active ? "listens in to" : "stopped listening in to") \(room.name)"
        case .recordingChanged(let locations, let recordingMe):
            "recording: \(locations.isEmpty ? "nothing" : locations.map(place).joined(separator: ", "))"
                + (recordingMe ? " (you are being recorded)" : "")
        case .recordingStopped(let locations, let reason):
            "recording stopped in \(locations.map(place).joined(separator: ", ")): \(reason.description)"
        }
    }

    private func chat(_ message: Caucus.ChatMessage, from: CaucusUser?) -> String {
        let sender = from?.name ?? name(message.from)
        switch message.scope {
        case .room(let location): return "chat in \(place(location)) from \(sender): \(message.text)"
        case .direct(let to):
            return to == snapshot?.myself.id
                ? "dm from \(sender): \(message.text)" : "dm to \(name(to)) from \(sender): \(message.text)"
        }
    }

    // MARK: - Pieces

    /// Whole seconds, rounded to the nearest.
    static func seconds(_ duration: Duration) -> Int {
        Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded())
    }

    /// Whole seconds from now until `date`, never negative.
    static func secondsUntil(_ date: Date) -> Int {
        max(0, Int(date.timeIntervalSinceNow.rounded()))
    }

    func names(_ users: [CaucusUser]) -> String { users.map(\.name).joined(separator: ", ") }

    func name(_ id: UserID) -> String { snapshot?.user(id)?.name ?? id.description }

    func place(_ location: Location) -> String {
        guard let id = location.roomID else { return "main" }
        return snapshot?.subsession(id)?.name ?? id.description
    }

    /// `Red (Ann, Ben), Blue (Cat)`: who is in each room while they are open, who is meant for it otherwise.
    func list(_ rooms: [SubsessionKit], status: SubsessionStatus) -> String {
        guard !rooms.isEmpty else { return "none" }
        let open = status == .started || status == .stopping
        return rooms.map { entry(name: $0.name, users: (open ? $0.users : $0.assignedUsers).map(\.name)) }.joined(separator: ", ")
    }

    func entry(name: String, users: [String]) -> String {
        users.isEmpty ? name : "\(name) (\(users.joined(separator: ", ")))"
    }

    func describe(_ parent: ParentControl) -> String {
        let states = [parent.paused ? "paused" : nil, parent.audioMuted ? "audio muted" : nil, parent.videoMuted ? "video muted" : nil]
            .compactMap { $0 }
        return states.isEmpty ? "open" : states.joined(separator: ", ")
    }

    func describe(_ result: HelpResult) -> String {
        switch result {
        case .ignored: "ignored"
        case .busy: "no one is free, ask again later"
        case .managerJoining: "someone is coming"
        case .managerAlreadyInSubsession: "the helper is already in a subsession"
        }
    }

    func describe(_ reason: SessionLeftReason) -> String {
        switch reason {
        case .left: "you left"
        case .sessionEnded(let end): "the session ended (\(end.rawValue))"
        case .removed: "the host removed you"
        case .replaced: "another connection took your seat"
        case .connectionLost: "the connection could not be restored"
        }
    }
}
