import CaucusCore

/// The shell around one session's pure state machine: it supplies the clock and the entropy,
/// numbers the events, applies them and says who receives each. One actor per live session,
/// so commands to a session are decided one at a time. (Persistence and fan-out over sockets
/// arrive with the server.)
public actor LiveSession {
    public private(set) var state: SessionState
    /// Every event so far, in order: the session's log.
    public private(set) var log: [SequencedEvent] = []
    private let clock: @Sendable () -> Instant
    private var generator: any RandomNumberGenerator

    public init(
        limits: SessionLimits = .standard, settings: SessionSettings = .standard,
        clock: @escaping @Sendable () -> Instant = Instant.wallClock,
        generator: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.state = SessionState(limits: limits, settings: settings)
        self.clock = clock
        self.generator = generator
    }

    /// Decides, applies and numbers what `command` makes happen.
    public func perform(_ command: Command, by principal: Principal) throws(CaucusError) -> [Delivery] {
        let now = clock()
        let events = try state.decide(command, by: principal, at: now, entropy: generator.next())
        return events.map { event in
            state.apply(event)
            let sequenced = SequencedEvent(seq: log.count + 1, at: now, event: event)
            log.append(sequenced)
            return Delivery(event: sequenced, recipients: state.recipients(of: event))
        }
    }
}

/// An event and the users who receive it.
public struct Delivery: Hashable, Sendable {
    public let event: SequencedEvent
    public let recipients: [UserID]
}
