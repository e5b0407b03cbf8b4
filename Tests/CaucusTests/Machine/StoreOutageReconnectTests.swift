@testable import Caucus
import CaucusCore
import CaucusProtocol
import Foundation
import Testing

/// A server that answers a resume but cannot decide it (1010: its store is unreachable) is up,
/// and the seat outlives an outage it survives: the SDK goes on trying for a fresh grace from
/// each such answer, up to `ReconnectSchedule.storeOutageLimit` after the drop. A 45 s outage of
/// the shared store used to outlast the 35 s budget although every seat survived it. A server
/// that cannot be reached at all still costs the seat at the grace.
@Suite struct StoreOutageReconnectTests {
    typealias Driver = SessionMachineDriver

    /// Follows the machine's attempts from `actions` until `end`, each resume answered with
    /// `answer` (nil: the socket cannot be opened); returns every action.
    static func attempts(
        _ driver: inout Driver, from actions: [Driver.Action], until end: ContinuousClock.Instant, answer: ErrorBody?
    ) -> [Driver.Action] {
        var pending = actions
        var all = actions
        while driver.now < end {
            if let open = pending.opens.first {
                guard let answer else {
                    driver.wait(.seconds(5))
                    pending = driver.machine.socketFailed(attempt: open.attempt, .connectionFailed("refused"), at: driver.now)
                    all += pending
                    continue
                }
                let socket = driver.newSocket()
                let opened = driver.machine.socketOpened(socket, attempt: open.attempt, at: driver.now)
                all += opened
                guard let resume = opened.sent.first?.outgoing else { break }
                driver.wait(.milliseconds(50))
                pending = driver.machine.received(.error(re: resume.id, answer), on: socket, at: driver.now)
                all += pending
            } else if let (timer, at) = pending.compactMap({ action -> (SessionMachine.Timer, ContinuousClock.Instant)? in
                if case .schedule(let timer, let at) = action, case .reconnect = timer { (timer, at) } else { nil }
            }).first {
                driver.now = max(driver.now, at)
                pending = driver.machine.timerFired(timer, at: driver.now)
                all += pending
            } else {
                break
            }
        }
        return all
    }

    @Test func resumesAnsweredWaitingForTheStoreKeepTheSeatThroughA45SecondOutage() {
        var driver = Driver()
        let (first, _) = driver.joined()
        let dropped = driver.now
        let closed = driver.machine.socketClosed(first, code: nil, at: driver.now)
        let during = Self.attempts(&driver, from: closed, until: dropped + .seconds(45), answer: Driver.refusal(.internalError))
        #expect(during.sessionLeft.isEmpty, "gave the seat up during the outage")
        #expect(during.opens.count > 10, "\(during.opens.count) attempts")

        // The store is back: the next attempt resumes the seat.
        let after = Self.attempts(&driver, from: [], until: driver.now + .seconds(1), answer: nil)
        #expect(after.sessionLeft.isEmpty)
        #expect(driver.machine.reconnectStage != nil, "still reconnecting, not given up")
    }

    @Test func answersWaitingForTheStoreStopMovingTheDeadlineAtTheOutageLimit() {
        var driver = Driver()
        let (first, _) = driver.joined()
        let dropped = driver.now
        let closed = driver.machine.socketClosed(first, code: nil, at: driver.now)
        let all = Self.attempts(&driver, from: closed, until: dropped + .seconds(400), answer: Driver.refusal(.internalError))
        #expect(all.sessionLeft == [.connectionLost])
        #expect(driver.now - dropped <= ReconnectSchedule.storeOutageLimit + .seconds(3), "gave up \(driver.now - dropped) after the drop")
        #expect(driver.now - dropped >= ReconnectSchedule.storeOutageLimit - .seconds(1))
    }

    @Test func aServerThatCannotBeReachedStillCostsTheSeatAtTheGrace() {
        var driver = Driver()
        let (first, _) = driver.joined()
        let dropped = driver.now
        let closed = driver.machine.socketClosed(first, code: nil, at: driver.now)
        let all = Self.attempts(&driver, from: closed, until: dropped + .seconds(60), answer: nil)
        #expect(all.sessionLeft == [.connectionLost])
        #expect(driver.now - dropped <= .seconds(41), "gave up \(driver.now - dropped) after the drop")
    }
}
