/// The engine's one deadline, as a `MediaPeer` has one: the shell asks ``nextDeadline`` after
/// each input and calls ``handleDeadline(now:slice:)`` then, and runs no timer of its own for
/// the engine. Two kinds of work fall due: the repairs (a lost publisher packet asked for again
/// ``UpstreamLoss/retryInterval`` after the last ask, 30 ms), whenever a loss sets one, and
/// the periodic work (``handleTimeout(now:slice:)``) every ``periodicInterval`` from the
/// first peer on, on a grid shared by every engine of that interval (``PeriodicSchedule``).
extension ForwardingEngine {
    /// How often the periodic work runs unless the engine is made with another interval (the
    /// server's `mediaTickInterval`): transport-cc feedback goes to the publishers at this pace
    /// (browsers send theirs every 50–100 ms), and layers and speakers are ranked at it.
    public static let standardPeriodicInterval = Duration.milliseconds(50)

    /// How often the periodic work runs.
    public var periodicInterval: Duration { periodic.interval }

    /// When the periodic work last ran (nil: never).
    public var lastPeriodicRun: Duration? { periodic.lastRun }

    /// When the engine next needs ``handleDeadline(now:slice:)``; nil before its first peer.
    public var nextDeadline: Duration? {
        switch (repairDeadline, periodic.due) {
        case (let repair?, let periodic?): min(repair, periodic)
        case (let one?, nil), (nil, let one?): one
        case (nil, nil): nil
        }
    }

    /// Whether ``handleDeadline(now:slice:)`` at `now` runs the periodic work (the shell does
    /// its own periodic work for the session with it).
    public func isPeriodicWorkDue(at now: Duration) -> Bool {
        periodic.isDue(at: now)
    }

    /// What is due at `now`: the periodic work (repairs included) when it is due, else the
    /// repairs due; nothing before ``nextDeadline``.
    public func handleDeadline(now: Duration, slice: Int = .max) {
        if periodic.isDue(at: now) {
            handleTimeout(now: now, slice: slice)
        } else if let due = repairDeadline, due <= now {
            handleRepairs(now: now)
        }
    }
}
