/// Where the session's breakout is in its life. Only these can be a session's state.
public enum BreakoutPhase: Hashable, Sendable {
    case none
    case committed
    case withdrawn
    case started
    /// Stop was asked with a countdown; everyone returns at `until`.
    case stopping(until: Instant)
    case stopped

    public var status: SubsessionStatus {
        switch self {
        case .none: .none
        case .committed: .committed
        case .withdrawn: .withdrawn
        case .started: .started
        case .stopping: .stopping
        case .stopped: .stopped
        }
    }

    /// Rooms are open: users may be in them.
    public var isRunning: Bool {
        switch self {
        case .started, .stopping: true
        default: false
        }
    }
}

/// The status values the seeds report. The four failure statuses never become a session's
/// state: they are what the one who tried hears when a commit, withdraw, start or stop is
/// refused (see `CaucusError.failureStatus`), while everyone else's status stays as it was.
public enum SubsessionStatus: String, Sendable, Codable, CaseIterable {
    case none
    case committed
    case withdrawn
    case started
    case stopping
    case stopped
    case commitFailed
    case withdrawFailed
    case startFailed
    case stopFailed
}
