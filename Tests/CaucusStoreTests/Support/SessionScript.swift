import CaucusCore

/// Produces a session's log the way the server does: the core decides and applies each
/// command, and the script numbers the events from 1. The events a test stores are real ones.
struct SessionScript {
    private(set) var state = SessionState()
    private(set) var log: [SequencedEvent] = []
    private(set) var now: Instant
    let name: String

    init(name: String = "Class", startingAt start: Instant = Instant(seconds: 1_700_000_000)) {
        self.name = name
        now = start
    }

    /// Performs `command` and returns its events, numbered after the log so far.
    mutating func run(_ command: Command, by principal: Principal = .server) throws -> [SequencedEvent] {
        var batch: [SequencedEvent] = []
        for event in try state.decide(command, by: principal, at: now) {
            state.apply(event)
            let sequenced = SequencedEvent(seq: log.count + 1, at: now, event: event)
            log.append(sequenced)
            batch.append(sequenced)
        }
        return batch
    }

    mutating func run(_ command: Command, by user: UserID) throws -> [SequencedEvent] {
        try run(command, by: .user(user))
    }

    /// Joins a user through the server, as a verified connection does.
    mutating func join(_ userName: String, claim: RoleClaim = .participant) throws -> (UserID, [SequencedEvent]) {
        let batch = try run(.join(JoinRequest(sessionName: name, userName: userName, claim: claim)))
        for case .userJoined(let user, _) in batch.map(\.event) { return (user.id, batch) }
        throw ScriptError.noJoin
    }

    mutating func advance(seconds: Int) { now = now.adding(seconds: seconds) }

    enum ScriptError: Error { case noJoin }
}

extension Instant {
    static let testEpoch = Instant(seconds: 1_700_000_000)
}
