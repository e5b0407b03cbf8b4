@testable import Caucus
import CaucusCore
import CaucusProtocol
import Testing

/// A first join closed 4009 (its address had as many connections waiting to join as the
/// server allows) is tried again on a new connection after a jittered delay (issue 41, item 5).
@Suite struct SessionMachineCrowdedJoinTests {
    typealias Driver = SessionMachineDriver

    /// Opens the join's connection, sends the join, and has the server close it with `code`.
    private static func closedAfterJoin(_ driver: inout Driver, code: UInt16) -> (join: SessionMachine.Ticket, closed: [SessionMachine.Action]) {
        let join = driver.ticket()
        let credentials = SessionMachine.Credentials(url: Driver.server, session: "Class", userName: "Ann", token: "jwt")
        let opening = driver.machine.join(credentials, password: nil, ticket: join, at: driver.now)
        let socket = driver.newSocket()
        #expect(driver.machine.socketOpened(socket, attempt: opening.opens[0].attempt, at: driver.now).sentOps == ["join"])
        return (join, driver.machine.socketClosed(socket, code: code, at: driver.now))
    }

    private static func retryDelay(of actions: [SessionMachine.Action], from now: ContinuousClock.Instant) -> (attempt: Int, delay: Duration)? {
        for action in actions {
            if case .schedule(.joinRetry(let attempt), at: let at) = action { return (attempt, at - now) }
        }
        return nil
    }

    @Test func aJoinClosed4009OpensANewConnectionAfterAJitteredDelayAndJoinsThere() throws {
        var driver = Driver()
        let (join, closed) = Self.closedAfterJoin(&driver, code: 4009)
        #expect(closed.completions.isEmpty, "the join is not failed")
        let (attempt, delay) = try #require(Self.retryDelay(of: closed, from: driver.now))
        #expect(delay >= .milliseconds(100) && delay <= .milliseconds(300), "\(delay)")
        #expect(driver.machine.timerFired(.joinRetry(attempt: attempt + 1), at: driver.now).isEmpty, "another attempt's timer")
        driver.wait(delay)
        let reopened = driver.machine.timerFired(.joinRetry(attempt: attempt), at: driver.now)
        #expect(reopened.opens.map(\.url) == [Driver.server])
        let socket = driver.newSocket()
        let sent = driver.machine.socketOpened(socket, attempt: reopened.opens[0].attempt, at: driver.now).sent
        #expect(sent.map(\.outgoing.request.op) == ["join"])
        let joined = driver.machine.received(
            .reply(re: sent[0].outgoing.id, result: .joined(user: Driver.ann, secret: "s", snapshot: Driver.joinSnapshot())), on: socket,
            at: driver.now)
        #expect(joined.completions.contains { if $0.ticket == join, case .joined(.success) = $0.completion { true } else { false } })
    }

    @Test func clientsClosedTogetherComeBackAtDifferentMomentsEachLaterThanTheLast() throws {
        var firstDelays: Set<Duration> = []
        for seed in UInt64(1)...20 {
            var driver = Driver()
            driver.machine = SessionMachine(settings: Driver.settings, seed: seed)
            let (_, closed) = Self.closedAfterJoin(&driver, code: 4009)
            firstDelays.insert(try #require(Self.retryDelay(of: closed, from: driver.now)).delay)
        }
        #expect(firstDelays.count >= 15, "20 clients, \(firstDelays.count) distinct delays")
        // Each retry's delay doubles (within its jitter), up to the longest.
        for retries in 0..<SessionMachine.crowdedRetryLimit {
            let base = min(SessionMachine.crowdedRetryDelays.lowerBound * (1 << retries), SessionMachine.crowdedRetryDelays.upperBound)
            #expect(SessionMachine.crowdedRetryDelay(after: retries, random: 0) == base * 0.5)
            #expect(SessionMachine.crowdedRetryDelay(after: retries, random: 0.999_999) <= base * 1.5)
        }
    }

    @Test func afterItsLastRetryOrOnAnotherCloseTheJoinFails() throws {
        var driver = Driver()
        let (join, first) = Self.closedAfterJoin(&driver, code: 4009)
        var scheduled = try #require(Self.retryDelay(of: first, from: driver.now))
        for retry in 1...SessionMachine.crowdedRetryLimit {
            driver.wait(scheduled.delay)
            let reopened = driver.machine.timerFired(.joinRetry(attempt: scheduled.attempt), at: driver.now)
            let socket = driver.newSocket()
            #expect(driver.machine.socketOpened(socket, attempt: reopened.opens[0].attempt, at: driver.now).sentOps == ["join"])
            let closed = driver.machine.socketClosed(socket, code: 4009, at: driver.now)
            if retry < SessionMachine.crowdedRetryLimit {
                scheduled = try #require(Self.retryDelay(of: closed, from: driver.now), "retry \(retry)")
            } else {
                #expect(Self.retryDelay(of: closed, from: driver.now) == nil)
                #expect(closed.completions.contains { if $0.ticket == join, case .joined(.failure) = $0.completion { true } else { false } })
            }
        }
        // Another close code is not retried.
        var other = Driver()
        let (otherJoin, closed) = Self.closedAfterJoin(&other, code: 4008)
        #expect(Self.retryDelay(of: closed, from: other.now) == nil)
        #expect(closed.completions.contains { if $0.ticket == otherJoin, case .joined(.failure) = $0.completion { true } else { false } })
    }
}
