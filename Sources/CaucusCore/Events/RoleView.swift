/// What a user's new role lets it see, sent to that user alone when its role grows: the
/// pre-list to a new host, the pending help requests and invitations to a new host or
/// manager. Without it a client promoted mid-session could not know what its role shows
/// until it asked for a snapshot. Decided by the core with the change (so the log keeps it and
/// a replay applies it again, changing nothing on the server: it repeats the state).
public struct RoleView: Hashable, Sendable {
    public let user: UserID
    public let role: Role
    /// For a host.
    public let preList: [PlannedRoom]?
    /// For a host or manager.
    public let helpRequests: [HelpRequest]?
    /// For a host or manager: everyone's pending invitations.
    public let invitations: [PendingInvitation]?

    public init(
        user: UserID, role: Role, preList: [PlannedRoom]?, helpRequests: [HelpRequest]?, invitations: [PendingInvitation]?
    ) {
        self.user = user
        self.role = role
        self.preList = preList
        self.helpRequests = helpRequests
        self.invitations = invitations
    }
}
