import CaucusCore

/// How history changes with an event: pure, so every store writes the same history. Each
/// store turns these into its own statements, in the same transaction as the event's insert.
public enum HistoryChange: Hashable, Sendable {
    /// The name as the core accepted it from the first joiner.
    case sessionNamed(String)
    case userJoined(UserID, name: String, at: Instant)
    /// The user's open stay ends.
    case userLeft(UserID, reason: String, at: Instant)
    case userRenamed(UserID, name: String)
    /// Every user still in the session leaves with ``UserHistory/sessionEndedReason``, and the
    /// session gets its end.
    case sessionEnded(reason: String, at: Instant)
}

public enum HistoryProjection {
    public static func changes(for sequenced: SequencedEvent) -> [HistoryChange] {
        switch sequenced.event {
        case .sessionStarted(let started): [.sessionNamed(started.name)]
        case .userJoined(let user, _): [.userJoined(user.id, name: user.name, at: sequenced.at)]
        case .userLeft(let user, let reason, _): [.userLeft(user, reason: reason.rawValue, at: sequenced.at)]
        case .userRenamed(let user, let name): [.userRenamed(user, name: name)]
        case .sessionEnded(let reason): [.sessionEnded(reason: reason.rawValue, at: sequenced.at)]
        case .hostChanged, .managerChanged, .userReconnecting, .userResumed, .modeChanged, .settingsChanged,
            .preListChanged, .statusChanged, .usersMoved, .assignmentsChanged, .roomRenamed, .invited, .invitationRejected,
            .parentControlChanged, .timerChanged, .timerWarning, .helpRequested, .helpAnswered, .chatMessage, .broadcast,
            .roleView, .mediaChanged, .voiceBroadcast, .listening, .recordingChanged:
            // Listed rather than `default`, so a new event kind makes us decide whether history
            // cares about it.
            []
        }
    }
}
