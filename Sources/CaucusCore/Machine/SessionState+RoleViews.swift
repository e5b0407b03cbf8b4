/// A role that grows brings its view: after a command's events, each user whose role now sees
/// more (a new host, a new manager) gets a `roleView` with what it newly sees, taken from the
/// state those events leave.
extension SessionState {
    func withRoleViews(_ events: [Event]) -> [Event] {
        // Most commands change no role; only these events can, and only they pay for a copy.
        guard events.contains(where: \.mayChangeRoles) else { return events }
        var after = self
        for event in events { after.apply(event) }
        var views: [Event] = []
        for user in after.users.values {
            guard let was = role(of: user.id) else { continue }  // a joiner's reply carries its view
            let now = after.role(of: user)
            guard (now == .host && was != .host) || (now.isManaging && !was.isManaging) else { continue }
            views.append(.roleView(after.view(for: user.id, as: now)))
        }
        return events + views
    }

    /// What `role` lets `user` see in this state.
    func view(for user: UserID, as role: Role) -> RoleView {
        RoleView(
            user: user, role: role, preList: role == .host ? preList : nil,
            helpRequests: role.isManaging ? helpRequests : nil,
            invitations: role.isManaging ? PendingInvitation.list(invitations) : nil)
    }
}

extension Event {
    var mayChangeRoles: Bool {
        switch self {
        case .hostChanged, .managerChanged: true
        case .userLeft(_, _, let newHost): newHost != nil
        case .userJoined(_, let becomesHost): becomesHost
        default: false
        }
    }
}
