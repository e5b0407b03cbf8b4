/// What the passing of time does: seats expire, timers warn and run out, countdowns end.
extension SessionState {
    func decideTick(_ context: Context) -> [Event] {
        let now = context.now
        // Each step sees the state the previous ones left, as replay will.
        var scratch = self
        var events: [Event] = []
        func emit(_ new: [Event]) {
            for event in new { scratch.apply(event) }
            events += new
        }

        let expired = users.values.filter {
            if case .reconnecting(let until) = $0.presence { return until <= now }
            return false
        }
        for user in expired where scratch.isLive {
            emit(scratch.departure(of: user.id, reason: .timedOut))
        }
        guard scratch.isLive else { return events }

        if let timer = scratch.timer {
            for warning in timer.pendingWarnings where timer.endsAt.adding(seconds: -warning) <= now {
                emit([.timerWarning(secondsRemaining: warning)])
            }
            if timer.endsAt <= now, scratch.phase == .started {
                emit(scratch.stopping(countdown: scratch.settings.countdownSeconds, now: now))
            }
        }
        if case .stopping(let until) = scratch.phase, until <= now {
            emit([.statusChanged(scratch.stoppedSnapshot)])
        }
        return events
    }

    /// Stop now (countdown 0) or after a countdown.
    func stopping(countdown: Int, now: Instant) -> [Event] {
        guard countdown > 0 else { return [.statusChanged(stoppedSnapshot)] }
        return [
            .statusChanged(
                BreakoutSnapshot(phase: .stopping(until: now.adding(seconds: countdown)), rooms: rooms, timer: nil, parent: parent))
        ]
    }

    /// Everyone back in the main session, rooms kept, the parent open again.
    var stoppedSnapshot: BreakoutSnapshot {
        BreakoutSnapshot(phase: .stopped, rooms: rooms.map(\.emptied), timer: nil, parent: .open)
    }
}

extension Room {
    var emptied: Room {
        var room = self
        room.occupants = []
        return room
    }
}
