import Caucus

/// What `users`, `rooms` and `status` print: the snapshot, a line per user or room.
extension CaucusSession.Snapshot {
    var userLines: [String] {
        users.map { user in
            let place = user.location.roomID.map { subsession($0)?.name ?? $0.description } ?? "main"
            let marks = [user.id == myself.id ? "you" : nil, user.isConnected ? nil : "reconnecting"].compactMap { $0 }
            return "  \(user.id) \(user.name), \(user.role.rawValue), in \(place)"
                + (marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))")
        }
    }

    var roomLines: [String] {
        guard !subsessions.isEmpty else { return ["  no subsessions"] }
        return subsessions.map { room in
            let inside = room.users.isEmpty ? "empty" : room.users.map(\.name).joined(separator: ", ")
            let assigned = room.assignedUsers.isEmpty ? "" : "; assigned: \(room.assignedUsers.map(\.name).joined(separator: ", "))"
            let capacity = room.definition.capacity.map { ", capacity \($0)" } ?? ""
            return "  \(room.id) \(room.name)\(capacity): \(inside)\(assigned)"
        }
    }

    var statusLines: [String] {
        var lines = ["session \(sessionName) (seq \(seq)), mode \(mode.rawValue), subsessions \(status.rawValue)"]
        let describe = EventDescription(snapshot: self)
        lines.append("you: \(myself.name) (\(myself.id)), \(myRole.rawValue), in \(describe.place(location))")
        if let timer { lines.append("timer: \(EventDescription.secondsUntil(timer.endsAt)) seconds left") }
        if let stopsAt { lines.append("stopping: everyone returns in \(EventDescription.secondsUntil(stopsAt)) seconds") }
        if parent != .open { lines.append("main session: \(describe.describe(parent))") }
        if let invitation { lines.append("invited to \(invitation.name): `accept \(invitation.name)` or `reject \(invitation.name)`") }
        if !preList.isEmpty {
            lines.append("plan: " + preList.map { describe.entry(name: $0.name, users: $0.assigned.map(describe.name)) }.joined(separator: ", "))
        }
        for help in helpRequests { lines.append("help request \(help.id) from \(help.userName) in \(help.subsessionName)") }
        return lines + ["users:"] + userLines + ["subsessions:"] + roomLines
    }
}
