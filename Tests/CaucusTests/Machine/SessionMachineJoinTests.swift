@testable import Caucus
import CaucusCore
import CaucusProtocol
import Testing

/// Joining through the SDK's session machine, driven directly: a redirect to the serving
/// node, the password hook, calls made during the join.
@Suite struct SessionMachineJoinTests {
    typealias Driver = SessionMachineDriver

    @Test func aJoinRedirectedToAnotherNodeJoinsThere() {
        var driver = Driver()
        let join = driver.ticket()
        let credentials = SessionMachine.Credentials(url: Driver.server, session: "Class", userName: "Ann", token: "jwt")
        let opening = driver.machine.join(credentials, password: nil, ticket: join, at: driver.now)
        let first = driver.newSocket()
        let sent = driver.machine.socketOpened(first, attempt: opening.opens[0].attempt, at: driver.now).sent
        let redirected = driver.machine.received(
            .error(re: sent[0].outgoing.id, Driver.refusal(.otherNode, url: Driver.otherNode)), on: first, at: driver.now)
        #expect(redirected.closed == [first])
        #expect(redirected.opens.map(\.url) == [Driver.otherNode])
        let second = driver.newSocket()
        let again = driver.machine.socketOpened(second, attempt: redirected.opens[0].attempt, at: driver.now).sent
        #expect(again.map(\.outgoing.request.op) == ["join"])
        let joined = driver.machine.received(
            .reply(re: again[0].outgoing.id, result: .joined(user: Driver.ann, secret: "s", snapshot: Driver.joinSnapshot())), on: second,
            at: driver.now)
        #expect(joined.connectionStates == [.connected])
        #expect(driver.machine.url == Driver.otherNode)
    }

    @Test func aPasswordRefusalAsksTheHookAndRetriesOnTheSameSocketUntilItGivesUp() {
        var driver = Driver()
        let join = driver.ticket()
        let credentials = SessionMachine.Credentials(url: Driver.server, session: "Class", userName: "Ann", token: "jwt")
        let opening = driver.machine.join(credentials, password: nil, ticket: join, at: driver.now)
        let socket = driver.newSocket()
        let first = driver.machine.socketOpened(socket, attempt: opening.opens[0].attempt, at: driver.now).sent[0].outgoing
        let asked = driver.machine.received(.error(re: first.id, Driver.refusal(.needPassword)), on: socket, at: driver.now)
        #expect(asked.contains { if case .askPassword(.needed, join) = $0 { true } else { false } })
        #expect(asked.notices.contains { if case .password(.needed) = $0 { true } else { false } })
        // An answer for another join is not this one's.
        #expect(driver.machine.passwordAnswered("nope", for: driver.ticket(), at: driver.now).isEmpty)
        let retried = driver.machine.passwordAnswered("wrong", for: join, at: driver.now).sent
        #expect(retried.map(\.socket) == [socket])
        #expect(retried[0].outgoing.request.password == "wrong")
        let again = driver.machine.received(.error(re: retried[0].outgoing.id, Driver.refusal(.passwordWrong)), on: socket, at: driver.now)
        #expect(again.contains { if case .askPassword(.wrong, join) = $0 { true } else { false } })
        let gaveUp = driver.machine.passwordAnswered(nil, for: join, at: driver.now)
        #expect(gaveUp.closed == [socket])
        #expect(gaveUp.connectionStates == [.disconnected])
        #expect(gaveUp.completions.contains {
            if $0.ticket == join, case .joined(.failure(.refused(let error))) = $0.completion { error.errorCode == .passwordWrong } else { false }
        })
    }

    @Test func aLeaveDuringTheJoinWaitsForItThenLeaves() {
        var driver = Driver()
        let join = driver.ticket()
        let credentials = SessionMachine.Credentials(url: Driver.server, session: "Class", userName: "Ann", token: "jwt")
        let opening = driver.machine.join(credentials, password: nil, ticket: join, at: driver.now)
        let leave = driver.ticket()
        #expect(driver.machine.leave(endSession: false, ticket: leave, at: driver.now).isEmpty)
        let socket = driver.newSocket()
        let sent = driver.machine.socketOpened(socket, attempt: opening.opens[0].attempt, at: driver.now).sent
        let joined = driver.machine.received(
            .reply(re: sent[0].outgoing.id, result: .joined(user: Driver.ann, secret: "s", snapshot: Driver.joinSnapshot())), on: socket,
            at: driver.now)
        #expect(joined.sentOps == ["leave"])
        let left = driver.machine.received(.reply(re: joined.sent[0].outgoing.id, result: .done(seq: 4)), on: socket, at: driver.now)
        #expect(left.done(leave) != nil)
        #expect(left.sessionLeft == [.left])
        // A second join on the same machine is allowed once the first is over.
        let rejoin = driver.ticket()
        #expect(driver.machine.join(credentials, password: nil, ticket: rejoin, at: driver.now).opens.count == 1)
        // While one join is under way another is refused.
        let third = driver.ticket()
        let refused = driver.machine.join(credentials, password: nil, ticket: third, at: driver.now)
        #expect(refused.completions.contains { if $0.ticket == third, case .joined(.failure(.alreadyJoined)) = $0.completion { true } else { false } })
    }
}
