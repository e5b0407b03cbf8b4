@testable import Caucus
import CaucusCore
import CaucusProtocol
import Testing

/// The offline leave's messenger (`FarewellMachine`), driven directly: attempts on the
/// reconnect schedule, the resume and the leave sent together, and what ends it.
@Suite struct FarewellMachineTests {
    typealias Machine = FarewellMachine
    typealias Driver = SessionMachineDriver

    static func machine(at dropped: ContinuousClock.Instant) -> Machine {
        let plan = SessionMachine.FarewellPlan(
            url: Driver.server, secret: "s3cret", lastSeq: 9, endSession: true,
            schedule: ReconnectSchedule(delays: .milliseconds(250) ... .seconds(2), deadline: .seconds(35)), dropped: dropped)
        return Machine(plan: plan, connectTimeout: .seconds(5), seed: 3)
    }

    /// Started and opened: the socket, and what was sent on it.
    static func talking(_ machine: inout Machine, at now: ContinuousClock.Instant) -> [Machine.Action] {
        guard case .open(_, let attempt) = machine.start(at: now).first else { return [] }
        return machine.socketOpened(41, attempt: attempt, at: now)
    }

    @Test func theResumeAndTheLeaveGoTogetherAndTheLeavesAnswerEndsIt() {
        let now = ContinuousClock.now
        var machine = Self.machine(at: now)
        #expect(machine.start(at: now) == [.open(url: Driver.server, attempt: 1)])
        let sent = machine.socketOpened(41, attempt: 1, at: now)
        let texts = sent.compactMap { if case .send(41, let text) = $0 { text } else { nil } }
        #expect(texts.count == 2)
        #expect(texts.first?.contains("\"op\":\"resume\"") == true && texts.first?.contains("\"lastSeq\":9") == true)
        #expect(texts.last?.contains("\"op\":\"leave\"") == true && texts.last?.contains("\"endSession\":true") == true)
        #expect(sent.last == .schedule(.silence(41), at: now + .seconds(5)))
        // The replay before the leave's answer is read past.
        #expect(machine.received(Driver.chat(10, "replayed"), on: 41, at: now).isEmpty)
        #expect(machine.received(.reply(re: Machine.leaveID, result: .done(seq: 11)), on: 41, at: now) == [.close(41), .finished])
    }

    @Test func aRedirectIsFollowedOnTheNextAttempt() {
        let now = ContinuousClock.now
        var machine = Self.machine(at: now)
        _ = Self.talking(&machine, at: now)
        let moved = machine.received(.error(re: Machine.resumeID, Driver.refusal(.otherNode, url: Driver.otherNode)), on: 41, at: now)
        #expect(moved.first == .close(41))
        guard case .schedule(.backoff(let attempt), let at) = moved.last else {
            Issue.record("no backoff: \(moved)")
            return
        }
        let opened = machine.timerFired(.backoff(attempt: attempt), at: at)
        #expect(opened.count == 1)
        #expect(opened.allSatisfy { if case .open(Driver.otherNode, _) = $0 { true } else { false } })
    }

    @Test func aRefusedResumeOrAFinalCloseEndsItAndAnyOtherCloseTriesAgain() {
        let now = ContinuousClock.now
        var refused = Self.machine(at: now)
        _ = Self.talking(&refused, at: now)
        #expect(refused.received(.error(re: Machine.resumeID, Driver.refusal(.resumeRefused)), on: 41, at: now) == [.close(41), .finished])

        var ended = Self.machine(at: now)
        _ = Self.talking(&ended, at: now)
        #expect(ended.socketClosed(41, code: 4005, at: now) == [.finished])

        var dropped = Self.machine(at: now)
        _ = Self.talking(&dropped, at: now)
        let again = dropped.socketClosed(41, code: nil, at: now)
        #expect(again.count == 1)
        #expect(again.allSatisfy { if case .schedule(.backoff, _) = $0 { true } else { false } })
    }

    @Test func aSilentSocketIsAbandonedAfterTheConnectTimeoutButFramesKeepItWaiting() {
        let now = ContinuousClock.now
        var machine = Self.machine(at: now)
        _ = Self.talking(&machine, at: now)
        _ = machine.received(nil, on: 41, at: now + .seconds(3))
        #expect(machine.timerFired(.silence(41), at: now + .seconds(5)) == [.schedule(.silence(41), at: now + .seconds(8))])
        let silent = machine.timerFired(.silence(41), at: now + .seconds(8))
        #expect(silent.first == .abandon(41))
        #expect(silent.count == 2)
    }

    @Test func pastTheDeadlineItGivesUp() {
        let now = ContinuousClock.now
        var machine = Self.machine(at: now)
        guard case .open(_, let attempt) = machine.start(at: now).first else {
            Issue.record("no attempt")
            return
        }
        let late = machine.socketFailed(attempt: attempt, at: now + .seconds(35))
        #expect(late.last == .finished)
        #expect(late.count == 2)
        #expect(machine.stage == .finished)
    }
}
