import CaucusCore
import CaucusProtocol

/// Checking, now and then, that no event went missing on the way: a `ping` says how many
/// events the server sent this seat since the last check; if fewer arrived, the session's
/// state is taken afresh from a snapshot (the app hears `resynchronized`).
extension SessionEngine {
    /// Checks every `missedEventCheckInterval` while connected, until the session is over.
    func startCheckingForMissedEvents() {
        missedEventCheckTask?.cancel()
        let interval = configuration.missedEventCheckInterval
        missedEventCheckTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                await self.checkForMissedEvents()
            }
        }
    }

    func stopCheckingForMissedEvents() {
        missedEventCheckTask?.cancel()
        missedEventCheckTask = nil
    }

    /// One check; a miss is followed by a fresh snapshot on the same connection.
    func checkForMissedEvents() async {
        guard phase == .connected, let socket, let asked = model?.missedEventCheck.after else { return }
        var ping = WireRequest(.ping)
        ping.after = asked
        guard case .success(.pong(let seq?, let sent)) = await exchange(ping, on: socket),
            self.socket === socket, var current = model
        else { return }
        let verdict = current.settleMissedEventCheck(asked: asked, seq: seq, sent: sent)
        model = current
        guard case .missed(let sentCount, let received) = verdict else { return }
        configuration.logger.warning(
            "\(sentCount - received) event(s) after seq \(asked) never arrived; taking a fresh snapshot")
        _ = await exchange(WireRequest(.getSnapshot), on: socket, resynchronizing: true)
    }

    /// Starts over from a snapshot, whose reply came after every event it includes.
    func resynchronize(to fresh: SessionSnapshot) {
        guard var current = model, fresh.seq >= current.seq else { return }
        current.reset(to: fresh)
        model = current
        if let view = snapshot { hub.emit(.resynchronized(view)) }
    }
}
