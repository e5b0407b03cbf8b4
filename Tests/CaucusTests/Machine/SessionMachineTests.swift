@testable import Caucus
import CaucusCore
import CaucusProtocol
import Testing

/// The SDK's session machine, driven directly: every input (an app call, a socket opened or
/// closed, a server frame, a timer, a network change) at a time the test sets, and the
/// actions it returns read as values. No sockets, no sleeps, no server.
@Suite struct SessionMachineTests {
    typealias Driver = SessionMachineDriver

    @Test func connectingJoiningThenEventsArePublishedBeforeTheyAreDelivered() throws {
        var driver = Driver()
        let join = driver.ticket()
        let credentials = SessionMachine.Credentials(url: Driver.server, session: "Class", userName: "Ann", token: "jwt")
        let opening = driver.machine.join(credentials, password: nil, ticket: join, at: driver.now)
        #expect(opening.opens.map(\.url) == [Driver.server])
        #expect(opening.connectionStates == [.connecting])

        // A call made while joining waits for the join, then goes out.
        let early = driver.ticket()
        #expect(driver.machine.request(WireRequest(.isStarted), ticket: early, at: driver.now).isEmpty)

        let socket = driver.newSocket()
        let sent = driver.machine.socketOpened(socket, attempt: opening.opens[0].attempt, at: driver.now).sent
        #expect(sent.map(\.outgoing.request.op) == ["join"])
        #expect(sent[0].outgoing.text.contains("\"userName\":\"Ann\""))

        let joined = driver.machine.received(
            .reply(re: sent[0].outgoing.id, result: .joined(user: Driver.ann, secret: "s3cret", snapshot: Driver.joinSnapshot())),
            on: socket, at: driver.now)
        #expect(joined.connectionStates == [.connected])
        #expect(joined.publishedSeqs == [3])
        guard case .joined(let model) = joined.notices.first else {
            Issue.record("no joined notice: \(joined.notices)")
            return
        }
        #expect(model.me == Driver.ann)
        #expect(joined.completions.first?.ticket == join)
        #expect(joined.sent.map(\.socket) == [socket])
        #expect(joined.sentOps == ["isStarted"])

        let event = driver.machine.received(Driver.chat(4, "hello"), on: socket, at: driver.now)
        #expect(event.publishedSeqs == [4])
        #expect(event.chatTexts == ["hello"])
        // The publish comes before the delivery: a handler reading the snapshot sees the event.
        let publish = try #require(event.firstIndex { if case .publish = $0 { true } else { false } })
        let deliver = try #require(event.firstIndex { if case .deliver = $0 { true } else { false } })
        #expect(publish < deliver)
        // Delivered once: the same seq again is ignored.
        #expect(driver.machine.received(Driver.chat(4, "hello"), on: socket, at: driver.now).chatTexts.isEmpty)
    }

    @Test func aResumeGetsTheMissedEventsThenThePingConfirmsItAndWaitingCallsGoOut() {
        var driver = Driver()
        let (first, _) = driver.joined()
        _ = driver.machine.received(Driver.chat(4, "before"), on: first, at: driver.now)

        let (second, resume, dropped) = driver.dropAndReopen(first)
        #expect(dropped.connectionStates == [.reconnecting])
        #expect(dropped.opens.map(\.url) == [Driver.server])
        #expect(resume.request.op == "resume")
        #expect(resume.request.secret == "s3cret")
        #expect(resume.request.lastSeq == 4)

        // A call made meanwhile waits for the resume.
        let chat = driver.ticket()
        #expect(driver.machine.request(.text(.chat, "back"), ticket: chat, at: driver.now).sent.isEmpty)

        let resumed = driver.machine.received(
            .reply(re: resume.id, result: .resumed(user: Driver.ann, replayingFrom: 5, snapshot: nil)), on: second, at: driver.now)
        #expect(resumed.sentOps == ["ping"])
        #expect(resumed.connectionStates.isEmpty)

        let missed = driver.machine.received(Driver.chat(5, "while away"), on: second, at: driver.now)
        #expect(missed.chatTexts == ["while away"])
        #expect(driver.machine.model?.seq == 5)

        let ping = resumed.sent[0].outgoing.id
        let confirmed = driver.machine.received(.reply(re: ping, result: .pong(seq: 5, sent: nil)), on: second, at: driver.now)
        #expect(confirmed.connectionStates == [.connected])
        #expect(confirmed.media == [.resumed(mediaKept: false)])
        #expect(confirmed.sent.map(\.socket) == [second])
        #expect(confirmed.sentOps == ["chat"])
        // The old socket's late frames are not read.
        #expect(driver.machine.received(Driver.chat(6, "late"), on: first, at: driver.now).isEmpty)
    }

    @Test func aRefusedResumeEndsTheSessionForThisUser() {
        var driver = Driver()
        let (first, _) = driver.joined()
        let (second, resume, _) = driver.dropAndReopen(first)

        let refused = driver.machine.received(.error(re: resume.id, Driver.refusal(.resumeRefused)), on: second, at: driver.now)
        #expect(refused.sessionLeft == [.connectionLost])
        #expect(refused.connectionStates == [.disconnected])
        #expect(refused.publishedSeqs == [nil])
        #expect(refused.media == [.ended])
        #expect(refused.closed == [second])
        #expect(refused.notices.contains { if case .error(.refused(let error)) = $0 { error.errorCode == .resumeRefused } else { false } })
        #expect(driver.machine.model == nil)
        // Nothing is tried again.
        #expect(refused.opens.isEmpty)
        // And a call now is refused at once.
        let late = driver.ticket()
        #expect(driver.machine.request(WireRequest(.isStarted), ticket: late, at: driver.now).reply(of: late) == .failure(.notJoined))
    }

    @Test func aResumeSentToAnotherNodeFollowsItAndStaysThere() {
        var driver = Driver()
        let (first, _) = driver.joined()
        let (second, resume, _) = driver.dropAndReopen(first)

        let redirected = driver.machine.received(
            .error(re: resume.id, Driver.refusal(.otherNode, url: Driver.otherNode)), on: second, at: driver.now)
        #expect(redirected.closed == [second])
        #expect(redirected.opens.map(\.url) == [Driver.otherNode])

        let third = driver.newSocket()
        let again = driver.machine.socketOpened(third, attempt: redirected.opens[0].attempt, at: driver.now).sent
        #expect(again.map(\.socket) == [third])
        #expect(again.map(\.outgoing.request.op) == ["resume"])
        #expect(driver.machine.url == Driver.otherNode)

        let resumed = driver.machine.received(
            .reply(re: again[0].outgoing.id, result: .resumed(user: Driver.ann, replayingFrom: nil, snapshot: nil)), on: third,
            at: driver.now)
        let confirmed = driver.machine.received(
            .reply(re: resumed.sent[0].outgoing.id, result: .pong(seq: 3, sent: nil)), on: third, at: driver.now)
        #expect(confirmed.connectionStates == [.connected])

        // The next drop tries the node that serves the session now.
        let dropped = driver.machine.socketClosed(third, code: nil, at: driver.now)
        #expect(dropped.opens.map(\.url) == [Driver.otherNode])
    }

    @Test func aNetworkChangeGivesUpAResumeStuckOnADeadPathAndTriesAgainAtOnce() {
        var driver = Driver()
        let (first, _) = driver.joined()
        let (stuck, _, _) = driver.dropAndReopen(first)
        #expect(driver.machine.reconnectStage == .resuming(stuck, redirects: 0))

        // Nothing arrives; before the resume's bound, the network changes.
        driver.wait(.seconds(2))
        let check = driver.ticket()
        let changed = driver.machine.networkChanged(ticket: check, at: driver.now)
        #expect(changed.abandoned == [stuck])
        #expect(changed.opens.map(\.url) == [Driver.server])
        #expect(changed.done(check) != nil)
        #expect(changed.connectionStates.isEmpty)

        // The stuck socket's late reply changes nothing; the new attempt resumes.
        #expect(driver.machine.received(Driver.chat(4, "late"), on: stuck, at: driver.now).isEmpty)
        let fresh = driver.newSocket()
        let resume = driver.machine.socketOpened(fresh, attempt: changed.opens[0].attempt, at: driver.now).sent
        #expect(resume.map(\.outgoing.request.op) == ["resume"])
    }

    @Test func aResumeThatGetsNoFrameWithinTheConnectTimeoutIsGivenUpAndTheScheduleGoesOn() {
        var driver = Driver()
        let (first, _) = driver.joined()
        let (stuck, resume, _) = driver.dropAndReopen(first)
        // Frames keep the resume waiting (a long replay), silence does not.
        driver.wait(.seconds(4))
        _ = driver.machine.received(Driver.chat(4, "replayed"), on: stuck, at: driver.now)
        driver.wait(.seconds(1))
        let notYet = driver.machine.timerFired(.request(resume.id), at: driver.now)
        #expect(notYet.abandoned.isEmpty)
        driver.wait(.seconds(4))
        let givenUp = driver.machine.timerFired(.request(resume.id), at: driver.now)
        #expect(givenUp.abandoned == [stuck])
        // The second attempt waits out a backoff (250 ms ± 25 %).
        guard case .waiting(let attempt) = driver.machine.reconnectStage else {
            Issue.record("not waiting: \(String(describing: driver.machine.reconnectStage))")
            return
        }
        let backoff = givenUp.compactMap { if case .schedule(.reconnect(attempt), let at) = $0 { at - driver.now } else { nil } }
        #expect(backoff.count == 1)
        #expect(backoff.allSatisfy { $0 >= .milliseconds(187) && $0 <= .milliseconds(313) })
        driver.wait(backoff[0])
        #expect(driver.machine.timerFired(.reconnect(attempt: attempt), at: driver.now).opens.map(\.url) == [Driver.server])
    }

    @Test func reconnectingGivesUpPastTheGrace() {
        var driver = Driver()
        let (first, _) = driver.joined()
        var actions = driver.machine.socketClosed(first, code: nil, at: driver.now)
        // Every attempt fails to open until the grace (30 s) and its margin (5 s) are over.
        while actions.sessionLeft.isEmpty {
            if let open = actions.opens.first {
                actions = driver.machine.socketFailed(attempt: open.attempt, .connectionFailed("refused"), at: driver.now)
            } else if case .waiting(let attempt) = driver.machine.reconnectStage {
                driver.wait(.seconds(2))
                actions = driver.machine.timerFired(.reconnect(attempt: attempt), at: driver.now)
            } else {
                Issue.record("stuck at \(String(describing: driver.machine.reconnectStage))")
                return
            }
        }
        #expect(actions.sessionLeft == [.connectionLost])
        #expect(actions.connectionStates == [.disconnected])
    }

    @Test func leavingWhileOfflineEndsAtOnceAndLeavesAFarewellForTheServer() {
        var driver = Driver()
        let (first, _) = driver.joined()
        _ = driver.machine.received(Driver.chat(4, "before"), on: first, at: driver.now)
        let dropped = driver.now
        let closed = driver.machine.socketClosed(first, code: nil, at: driver.now)
        driver.wait(.seconds(3))

        let leave = driver.ticket()
        let left = driver.machine.leave(endSession: false, ticket: leave, at: driver.now)
        #expect(left.done(leave) != nil)
        #expect(left.sessionLeft == [.left])
        #expect(left.connectionStates == [.disconnected])
        #expect(left.compactMap { if case .cancelOpening(let attempt) = $0 { attempt } else { nil } } == [closed.opens[0].attempt])
        let farewells = left.compactMap { if case .farewell(let plan) = $0 { plan } else { nil } }
        #expect(farewells.count == 1)
        #expect(farewells.first?.secret == "s3cret")
        #expect(farewells.first?.lastSeq == 4)
        #expect(farewells.first?.dropped == dropped)
        #expect(farewells.first?.endSession == false)
        // The attempt under way, when it opens, is closed at once.
        #expect(driver.machine.socketOpened(driver.newSocket(), attempt: closed.opens[0].attempt, at: driver.now).closed.count == 1)
    }

    @Test func aLeaveUnansweredWithinTheConnectTimeoutLeavesOffline() {
        var driver = Driver()
        let (socket, _) = driver.joined()
        let leave = driver.ticket()
        let sent = driver.machine.leave(endSession: true, ticket: leave, at: driver.now).sent
        #expect(sent.map(\.outgoing.request.op) == ["leave"])
        driver.wait(.seconds(5))
        let timedOut = driver.machine.timerFired(.request(sent[0].outgoing.id), at: driver.now)
        #expect(timedOut.abandoned == [socket])
        #expect(timedOut.closed.isEmpty)
        #expect(timedOut.contains { if case .farewell(let plan) = $0 { plan.endSession } else { false } })
        #expect(timedOut.done(leave) != nil)
        #expect(timedOut.sessionLeft == [.left])
    }

    @Test func aRequestWithoutAReplyTimesOutAfterTheRequestTimeout() {
        var driver = Driver()
        let (socket, _) = driver.joined()
        let call = driver.ticket()
        let sent = driver.machine.request(WireRequest(.isStarted), ticket: call, at: driver.now)
        let id = sent.sent[0].outgoing.id
        let bound = sent.compactMap { if case .schedule(.request(id), let at) = $0 { at - driver.now } else { nil } }
        #expect(bound == [.seconds(30)])
        // Frames on the socket do not extend a request bounded in all.
        driver.wait(.seconds(20))
        _ = driver.machine.received(Driver.chat(4, "busy"), on: socket, at: driver.now)
        driver.wait(.seconds(10))
        let fired = driver.machine.timerFired(.request(id), at: driver.now)
        #expect(fired.reply(of: call) == .failure(.timedOut))
        // The connection is kept: a slow reply is not a dead socket.
        #expect(fired.connectionStates.isEmpty)
        // A reply that comes after all is dropped.
        #expect(driver.machine.received(.reply(re: id, result: .started(true)), on: socket, at: driver.now).completions.isEmpty)
    }

    @Test func anUnansweredKeepaliveGivesTheSocketUpAndResumes() {
        var driver = Driver()
        let (socket, joined) = driver.joined()
        let keepalive = joined.compactMap { if case .schedule(.keepalive(socket), let at) = $0 { at } else { nil } }
        #expect(keepalive == [driver.now + .seconds(15)])
        driver.wait(.seconds(15))
        let ping = driver.machine.timerFired(.keepalive(socket), at: driver.now).sent
        #expect(ping.map(\.outgoing.request.op) == ["ping"])
        driver.wait(.seconds(5))
        let dead = driver.machine.timerFired(.request(ping[0].outgoing.id), at: driver.now)
        #expect(dead.abandoned == [socket])
        #expect(dead.connectionStates == [.reconnecting])
        #expect(dead.opens.map(\.url) == [Driver.server])
    }

    @Test func aSlotMapReachesTheMediaAfterTheEventsBeforeIt() throws {
        var driver = Driver()
        let (socket, _) = driver.joined()
        let joined = SequencedEvent(seq: 4, at: Instant(seconds: 4), event: .userJoined(Driver.user(Driver.cy, "Cy"), becomesHost: false))
        var actions = driver.machine.received(.event(joined), on: socket, at: driver.now)
        let slots = [MediaSlot(mid: "3", kind: "video", user: Driver.cy)]
        actions += driver.machine.received(.mediaSlots(slots, activeSpeakers: [Driver.cy]), on: socket, at: driver.now)
        #expect(actions.media == [.slots(slots, unplayable: [], activeSpeakers: [Driver.cy])])
        let published = try #require(actions.firstIndex { if case .publish(let model) = $0 { model?.user(Driver.cy) != nil } else { false } })
        let delivered = try #require(actions.firstIndex { if case .deliver = $0 { true } else { false } })
        let mapped = try #require(actions.firstIndex { if case .media = $0 { true } else { false } })
        #expect(published < mapped)
        #expect(delivered < mapped)
        // A slot map from a socket given up is not applied.
        let (second, _, _) = driver.dropAndReopen(socket)
        _ = second
        #expect(driver.machine.received(.mediaSlots([]), on: socket, at: driver.now).media.isEmpty)
    }

    @Test func aMissedEventIsNoticedByTheCheckAndASnapshotReplacesTheModel() {
        var driver = Driver()
        let (socket, _) = driver.joined()
        _ = driver.machine.received(Driver.chat(4, "seen"), on: socket, at: driver.now)
        driver.wait(.seconds(20))
        let check = driver.machine.timerFired(.missedEventCheck, at: driver.now).sent
        #expect(check.map(\.outgoing.request.after) == [3])
        // The server sent two events after seq 3; one arrived.
        let missed = driver.machine.received(.reply(re: check[0].outgoing.id, result: .pong(seq: 5, sent: 2)), on: socket, at: driver.now)
        #expect(missed.sentOps == ["getSnapshot"])
        var fresh = Driver.joinSnapshot()
        fresh = SessionSnapshot(state: SessionState(restoring: fresh), viewer: Driver.ann, seq: 5)
        let replaced = driver.machine.received(.reply(re: missed.sent[0].outgoing.id, result: .snapshot(fresh)), on: socket, at: driver.now)
        #expect(replaced.notices.contains { if case .resynchronized(let model) = $0 { model.seq == 5 } else { false } })
        #expect(driver.machine.model?.seq == 5)
    }

    @Test func theServersFinalCloseEndsTheSessionWithoutAReconnect() {
        var driver = Driver()
        let (socket, _) = driver.joined()
        let call = driver.ticket()
        _ = driver.machine.request(WireRequest(.isStarted), ticket: call, at: driver.now)
        let removed = driver.machine.socketClosed(socket, code: 4003, at: driver.now)
        #expect(removed.sessionLeft == [.removed])
        #expect(removed.opens.isEmpty)
        #expect(removed.reply(of: call) == .failure(.connectionLost))
    }

    @Test func theSessionsEndIsTakenFromItsEventAndAnUnknownEventStillCountsAsSeen() {
        var driver = Driver()
        let (socket, _) = driver.joined()
        // A newer server's event: nothing to tell, but a resume will not ask for it again.
        let unknown = driver.machine.received(.unknownEvent(seq: 4, at: Instant(seconds: 4), type: "fromTheFuture"), on: socket, at: driver.now)
        #expect(unknown.notices.isEmpty)
        #expect(driver.machine.model?.seq == 4)
        let ended = SequencedEvent(seq: 5, at: Instant(seconds: 5), event: .sessionEnded(.endedByHost))
        let over = driver.machine.received(.event(ended), on: socket, at: driver.now)
        #expect(over.sessionLeft == [.sessionEnded(.endedByHost)])
        #expect(over.media == [.ended])
        #expect(over.publishedSeqs.last == .some(nil))
        // The server's close that follows changes nothing more.
        #expect(driver.machine.socketClosed(socket, code: 4002, at: driver.now).isEmpty)
    }
}
