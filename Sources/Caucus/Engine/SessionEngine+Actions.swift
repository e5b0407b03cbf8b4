import CaucusCore
import CaucusProtocol

/// Carrying out the machine's actions: the shell's only I/O.
extension SessionEngine {
    func perform(_ actions: [Machine.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: Machine.Action) {
        switch action {
        case .open(let url, let attempt):
            let configuration = configuration
            openings[attempt] = Task {
                let result: Result<Socket, SessionError>
                do throws(SessionError) {
                    result = .success(try await Socket.connect(to: url, configuration: configuration))
                } catch {
                    result = .failure(error)
                }
                self.opened(result, attempt: attempt)
            }
        case .cancelOpening(let attempt):
            openings.removeValue(forKey: attempt)?.cancel()
        case .send(let socket, let outgoing):
            sockets[socket]?.send(outgoing.text)
        case .close(let socket):
            sockets.removeValue(forKey: socket)?.close()
        case .abandon(let socket):
            sockets.removeValue(forKey: socket)?.abandon()
        case .schedule(let timer, let instant):
            timers[timer]?.task.cancel()
            nextTimerNumber += 1
            let number = nextTimerNumber
            let task = Task { [weak self] in
                try? await Task.sleep(until: instant, clock: .continuous)
                guard !Task.isCancelled, let self else { return }
                await self.fire(timer, number: number)
            }
            timers[timer] = (number, task)
        case .cancelTimer(let timer):
            timers.removeValue(forKey: timer)?.task.cancel()
        case .publish(let model):
            published.publish(model)
        case .connection(let state):
            if published.publish(state) { hub.emit(.connectionStateChanged(state)) }
        case .deliver(let notices):
            hub.emit(notices.flatMap(events(for:)))
        case .complete(let ticket, let completion):
            passwordSources[ticket] = nil
            waiting.removeValue(forKey: ticket)?.resume(returning: completion)
        case .askPassword(let prompt, let ticket):
            let source = passwordSources[ticket]
            Task {
                let answer = await source?(prompt)
                self.passwordAnswered(answer, for: ticket)
            }
        case .farewell(let plan):
            let farewell = Farewell(plan: plan, configuration: configuration)
            Task { await farewell.run() }
        case .media(let notice):
            switch notice {
            case .slots(let slots, let unplayable, let speakers): mediaSlots.receive(slots, unplayable: unplayable, activeSpeakers: speakers)
            case .joined: mediaSlots.joined()
            case .resumed(let mediaKept): mediaSlots.resumed(mediaKept: mediaKept)
            case .ended: mediaSlots.sessionEnded()
            }
        case .watchNetwork(let on):
            if on {
                networkWatcher.start { [weak self] in
                    Task { await self?.networkChanged() }
                }
            } else {
                networkWatcher.stop()
            }
        case .log(let level, let message):
            configuration.logger.log(level: level, "\(message)")
        case .endEvents:
            hub.finish()
        }
    }

    /// What the app hears of a notice.
    private func events(for notice: Machine.Notice) -> [SessionEvent] {
        switch notice {
        case .event(let event, let before, let after, let model):
            return EventTranslator(me: model.me, before: before, after: after, model: model, engine: self).translate(event.event)
        case .joined(let model):
            let view = CaucusSession.Snapshot(model: model, engine: self)
            var events: [SessionEvent] = [.sessionJoined(view)]
            if view.myRole.isManaging { events.append(.managerHandle(SubsessionManager(engine: self))) }
            if let room = view.mySubsession { events.append(.participantHandle(SubsessionParticipant(subsession: room, engine: self))) }
            return events
        case .resynchronized(let model):
            return [.resynchronized(CaucusSession.Snapshot(model: model, engine: self))]
        case .sessionLeft(let reason):
            return [.sessionLeft(reason)]
        case .error(let error):
            return [.error(error)]
        case .password(let prompt):
            return [prompt == .needed ? .needPassword : .passwordWrong]
        }
    }
}
