import CaucusCore
import CaucusProtocol
import Foundation
import NIOConcurrencyHelpers

/// What a `leave()` made while the connection is down leaves behind. The app is told at once
/// (`sessionLeft(.left)`, no snapshot), and the server is told when it can be: while its grace
/// holds the seat, this keeps trying, on the reconnect schedule, to resume the seat and leave
/// it, so that the others hear "left" rather than "timed out". If the connection does not
/// return in time, the seat expires (the others hear `timedOut`), which is all that was left
/// to do. It owns its sockets and touches no session state: the session object is free to
/// join again meanwhile (as a new user).
struct Farewell: Sendable {
    /// The node that served the session.
    let url: String
    let secret: String
    let lastSeq: Int
    let endSession: Bool
    let configuration: CaucusSession.Configuration
    let schedule: ReconnectSchedule
    /// When the connection was lost, from which the schedule's deadline counts.
    let dropped: ContinuousClock.Instant

    private enum Outcome {
        /// The server let go of the seat (or it was already gone): nothing left to say.
        case done
        case again
        /// Another node serves the session.
        case moved(to: String)
    }

    func run() async {
        var schedule = schedule
        var url = url
        while !Task.isCancelled {
            switch schedule.next(elapsed: .now - dropped, random: .random(in: 0..<1)) {
            case .giveUp:
                configuration.logger.info("could not tell the server about the leave; its grace lets the seat go")
                return
            case .attempt(let delay):
                if delay > .zero { try? await Task.sleep(for: delay) }
                switch await attempt(on: url) {
                case .done: return
                case .again: continue
                case .moved(let next): url = next
                }
            }
        }
    }

    /// One try: the resume and the leave sent together (the server reads the leave once the
    /// resume and its replay are done), then the leave's answer or the server's close awaited,
    /// for as long as the socket keeps bringing frames, and at most `connectTimeout` without one.
    private func attempt(on url: String) async -> Outcome {
        guard let socket = try? await Socket.connect(to: url, configuration: configuration) else { return .again }
        let resume = 1
        let leave = 2
        guard let resumeFrame = try? WireRequest.resume(secret: secret, lastSeq: lastSeq).frame(id: resume),
            let leaveFrame = try? WireRequest.leave(endSession: endSession).frame(id: leave)
        else {
            socket.close()
            return .done
        }
        socket.send(resumeFrame)
        socket.send(leaveFrame)
        let heard = NIOLockedValueBox(ContinuousClock.now)
        let limit = configuration.connectTimeout
        let watchdog = Task {
            var wait = limit
            while !Task.isCancelled {
                try? await Task.sleep(for: wait)
                let quiet = ContinuousClock.now - heard.withLockedValue { $0 }
                guard quiet < limit else { break }
                wait = limit - quiet
            }
            if !Task.isCancelled { socket.abandon() }
        }
        defer { watchdog.cancel() }
        let decoder = JSONDecoder()
        for await item in socket.inbound {
            switch item {
            case .text(let text):
                heard.withLockedValue { $0 = .now }
                guard let frame = try? decoder.decode(ServerFrame.self, from: Data(text.utf8)) else { continue }
                switch frame {
                case .reply(re: leave, _), .error(re: .some(leave), _):
                    socket.close()
                    return .done
                case .error(re: .some(resume), let body):
                    let error = ServerError(body)
                    if error.errorCode == .otherNode, let next = error.nodeURL?.absoluteString {
                        socket.close()
                        return .moved(to: next)
                    }
                    // Refused for good (`resumeRefused`: the seat is gone already), or for a
                    // reason another try will not change.
                    socket.close()
                    return .done
                default:
                    continue
                }
            case .closed(let code, _):
                // Left (4005), ended (4002), removed (4003), or another connection took the seat (4004).
                if let code, (4002...4005).contains(code) { return .done }
                return .again
            }
        }
        return .again
    }
}
