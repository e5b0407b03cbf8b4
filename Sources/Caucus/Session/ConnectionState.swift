import CaucusCore

/// Where the session's connection is.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Opening the connection and joining.
    case connecting
    /// Joined: calls go straight to the server.
    case connected
    /// The connection dropped; the SDK is reconnecting and will resume the same seat (same
    /// room, same role) with every missed event. Calls made meanwhile wait for it.
    case reconnecting
    /// Not in a session: before `join`, after `leave`, or once the session is over.
    case disconnected

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting: "reconnecting"
        case .disconnected: "disconnected"
        }
    }
}

/// Why this user is no longer in the session.
public enum SessionLeftReason: Sendable, Hashable, CustomStringConvertible {
    /// `leave()` was called.
    case left
    /// The session ended for everyone (the host ended it, the server did, or everyone left).
    case sessionEnded(EndReason)
    /// The host removed this user.
    case removed
    /// Another connection resumed this seat.
    case replaced
    /// The connection could not be restored: the server no longer holds the seat, or it
    /// stayed unreachable past the reconnect grace. Join again to come back.
    case connectionLost

    /// In the names an app writes: `sessionEnded(endedByHost)`, never the core's module name.
    public var description: String {
        switch self {
        case .left: "left"
        case .sessionEnded(let reason): "sessionEnded(\(reason.rawValue))"
        case .removed: "removed"
        case .replaced: "replaced"
        case .connectionLost: "connectionLost"
        }
    }
}

/// What the password hook is asked for.
public enum PasswordPrompt: Sendable, Hashable {
    /// The session is private and no password was given.
    case needed
    /// The password given was wrong.
    case wrong
}
