import CaucusCore
import Foundation

/// A user of the session as this client sees them.
public struct CaucusUser: Sendable, Hashable, Identifiable, CustomStringConvertible {
    public let id: UserID
    public let name: String
    public let role: CaucusRole
    /// The main session or the subsession the user is in.
    public let location: CaucusLocation
    /// False while the user's connection is down and the server holds their seat.
    public let isConnected: Bool
    /// `user_identity` from the user's token, if any.
    public let identity: String?
    /// When the user joined the session.
    public let joinedAt: Date
    /// What the user publishes: audio, video, screen share.
    public let publishing: MediaKinds

    public init(
        id: UserID, name: String, role: CaucusRole, location: CaucusLocation = .main, isConnected: Bool = true, identity: String? = nil,
        joinedAt: Date, publishing: MediaKinds = []
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.location = location
        self.isConnected = isConnected
        self.identity = identity
        self.joinedAt = joinedAt
        self.publishing = publishing
    }

    init(_ user: SessionUser, role: Role) {
        self.init(
            id: user.id, name: user.name, role: role, location: user.location, isConnected: user.presence.isConnected,
            identity: user.identity, joinedAt: Date(user.joinedAt), publishing: user.publishing)
    }

    public var isHost: Bool { role == .host }
    public var isManager: Bool { role == .manager }
    /// Host and managers hold the subsession-manager powers.
    public var canManageSubsessions: Bool { role.isManaging }
    public var isInSubsession: Bool { location != .main }
    /// The subsession the user is in, if any.
    public var subsessionID: RoomID? { location.roomID }

    public var description: String { "\(name) (\(id), \(role.rawValue), in \(location))" }
}

extension SessionState {
    /// A present user as the SDK shows them.
    func caucusUser(_ id: UserID) -> CaucusUser? {
        users[id].map { CaucusUser($0, role: role(of: $0)) }
    }

    func caucusUsers(_ ids: [UserID]) -> [CaucusUser] { ids.compactMap(caucusUser) }
}
