import CaucusCore

/// `print(event)` shows what happened in a line: the event's name and the users, rooms and
/// values it is about, never the engine state a snapshot or a handle carries.
extension SessionEvent: CustomStringConvertible {
    public var description: String {
        switch self {
        case .sessionJoined(let snapshot): "sessionJoined(\(snapshot))"
        case .sessionLeft(let reason): "sessionLeft(\(reason))"
        case .connectionStateChanged(let state): "connectionStateChanged(\(state))"
        case .needPassword: "needPassword"
        case .passwordWrong: "passwordWrong"
        case .error(let error): "error(\(error))"
        case .resynchronized(let snapshot): "resynchronized(\(snapshot))"
        case .usersJoined(let users): "usersJoined(\(Self.names(users)))"
        case .usersLeft(let users, let reason): "usersLeft(\(Self.names(users)), reason: \(reason))"
        case .hostChanged(let from, let to): "hostChanged(from: \(from?.name ?? "nobody"), to: \(to.name))"
        case .managerChanged(let user): "managerChanged(\(user))"
        case .userRenamed(let user): "userRenamed(\(user))"
        case .userConnectionChanged(let user): "userConnectionChanged(\(user.name), connected: \(user.isConnected))"
        case .modeChanged(let mode): "modeChanged(\(mode))"
        case .settingsChanged: "settingsChanged"
        case .preListChanged(let rooms): "preListChanged(\(rooms.map(\.name).joined(separator: ", ")))"
        case .subsessionStatusChanged(let status, let kits): "subsessionStatusChanged(\(status), \(Self.rooms(kits)))"
        case .managerHandle(let manager): "managerHandle(\(manager == nil ? "none" : "granted"))"
        case .participantHandle(let participant): "participantHandle(\(participant.map { $0.subsession.name } ?? "none"))"
        case .subsessionUsersUpdated(let kit): "subsessionUsersUpdated(\(kit))"
        case .usersMoved(let moves): "usersMoved(\(moves.count) user\(moves.count == 1 ? "" : "s"))"
        case .moved(let kit): "moved(to: \(kit?.name ?? "main"))"
        case .assignmentsChanged(let kits): "assignmentsChanged(\(Self.rooms(kits)))"
        case .subsessionRenamed(let kit): "subsessionRenamed(\(kit.name))"
        case .invited(let kit, let by): "invited(to: \(kit.name), by: \(by?.name ?? "the server"))"
        case .usersInvited(let users, let kit, let by):
            "usersInvited(\(Self.names(users)), to: \(kit.name), by: \(by?.name ?? "the server"))"
        case .invitationRejected(let user, let kit): "invitationRejected(\(user.name), \(kit.name))"
        case .parentControlChanged(let control): "parentControlChanged(\(control))"
        case .timerChanged(let timer): "timerChanged(\(timer.map { "\($0)" } ?? "none"))"
        case .timerWarning(let remaining): "timerWarning(remaining: \(remaining))"
        case .helpRequested(let handler): "helpRequested(\(handler.id) from \(handler.userName) in \(handler.subsessionName))"
        case .helpRequestResult(let result): "helpRequestResult(\(result))"
        case .helpRequestAnswered(let id, let result, let by): "helpRequestAnswered(\(id), \(result), by: \(by?.name ?? "nobody"))"
        case .broadcast(let text, let from): "broadcast(\(from?.name ?? "the server"): \(Self.clipped(text)))"
        case .mediaChanged(let user): "mediaChanged(\(user.name): \(user.publishing.kinds.map { "\($0)" }.joined(separator: ", ")))"
        case .mediaMuted(let user, let kinds, let by):
            "mediaMuted(\(user.name): \(kinds.kinds.map { "\($0)" }.joined(separator: ", ")) by \(by?.name ?? "a former user"))"
        case .voiceBroadcastChanged(let user, let active): "voiceBroadcastChanged(\(user.name), active: \(active))"
        case .listeningChanged(let user, let room, let active): "listeningChanged(\(user.name) to \(room.name), active: \(active))"
        case .recordingChanged(let locations, let recordingMe): "recordingChanged(\(locations.map(\.description)), recordingMe: \(recordingMe))"
        case .recordingStopped(let locations, let reason): "recordingStopped(\(locations.map(\.description)), \(reason.rawValue))"
        case .chatMessage(let message, let sender): "chatMessage(\(sender?.name ?? "\(message.from)"): \(Self.clipped(message.text)))"
        }
    }

    private static func names(_ users: [CaucusUser]) -> String { "[" + users.map(\.name).joined(separator: ", ") + "]" }

    private static func rooms(_ kits: [SubsessionKit]) -> String { "[" + kits.map(\.name).joined(separator: ", ") + "]" }

    /// A message as long as a line allows.
    private static func clipped(_ text: String) -> String { text.count <= 80 ? text : text.prefix(79) + "…" }
}

extension CaucusSession.Snapshot: CustomStringConvertible {
    /// The session in a line: its name, the last event included, who this user is, how many
    /// are present, and the breakout's status.
    public var description: String {
        "\(sessionName) at seq \(seq): \(myself.name) (\(myRole.rawValue)), \(users.count) present, subsessions \(status)"
    }
}
