import Caucus
import CaucusCore
import Testing

/// Roles, refusals, direct messages, leaving and removal, and the delegate.
@Suite struct SessionTests {
    @Test func refusalsCarryTheServersCodeNameMessageAndFailureStatus() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let commit = await #expect(throws: SessionError.self) { try await #require(host.session.subsessionHelper).commit() }
        #expect(commit?.code == .preListEmpty)
        #expect(commit?.serverError?.name == "preListEmpty")
        #expect(commit?.serverError?.failureStatus == .commitFailed)
        #expect(commit?.serverError?.message.isEmpty == false)
        let start = await #expect(throws: SessionError.self) { try await #require(host.session.subsessionManager).start() }
        #expect(start?.serverError?.failureStatus == .startFailed)
        #expect(try host.snapshot.status == SubsessionStatus.none, "a refusal changes nothing")
        // A participant has no planning helper; a manager has one, but planning is the host's.
        #expect(ann.session.subsessionHelper == nil)
        try await host.session.userHelper.makeManager(try ben.id)
        try await ben.log.next("the manager handle") { if case .managerHandle(_?) = $0 { true } else { nil } }
        let plan = await #expect(throws: SessionError.self) { try await #require(ben.session.subsessionHelper).addToPreList("Mine") }
        #expect(plan?.code == .notPermitted)
        let stop = await #expect(throws: SessionError.self) { try await #require(host.session.subsessionManager).stop() }
        #expect(stop?.serverError?.failureStatus == .stopFailed)
        try await #require(host.session.subsessionHelper).addToPreList("Mine")
        try await #require(host.session.subsessionHelper).commit()
        try await #require(host.session.subsessionHelper).withdraw()
        #expect(try host.snapshot.status == .withdrawn && host.snapshot.subsessions.isEmpty)
        let withdraw = await #expect(throws: SessionError.self) { try await #require(host.session.subsessionHelper).withdraw() }
        #expect(withdraw?.serverError?.failureStatus == .withdrawFailed)
        try await #require(host.session.subsessionHelper).clearPreList()
        #expect(try await #require(host.session.subsessionHelper).preList().isEmpty)
        #expect(ann.session.subsessionManager == nil && ann.session.subsessionParticipant == nil)
        await server.stop()
    }

    @Test func aPromotedUserLearnsWhatItsNewRoleMaySee() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        try await #require(host.session.subsessionHelper).addToPreList("X", "Y")
        try await #require(host.session.subsessionHelper).commit()
        try await #require(host.session.subsessionManager).start()
        try await ann.log.next("started") { SeedWalkthroughTests.status($0) == .started ? true : nil }
        try await #require(try ann.snapshot.subsession(named: "X")).join()
        try await #require(ann.session.subsessionParticipant).requestHelp()
        try await host.log.next("the request") { if case .helpRequested = $0 { true } else { nil } }
        #expect(try ben.snapshot.helpRequests.isEmpty, "a participant does not see help requests")

        // Ben becomes a manager: the request made before is now his to see.
        try await host.session.userHelper.makeManager(try ben.id)
        let handler = try await ben.log.next("the pending request, revealed") { if case .helpRequested(let handler) = $0 { handler } else { nil } }
        #expect(handler.userName == "Ann" && handler.subsessionName == "X")
        #expect(try ben.snapshot.helpRequests.map(\.userName) == ["Ann"])

        // Ben becomes the host: the pre-list is now his, and the old host no longer sees it.
        try await host.session.userHelper.transferHost(to: try ben.id)
        let plan = try await ben.log.next("the pre-list, revealed") { if case .preListChanged(let plan) = $0 { plan } else { nil } }
        #expect(plan.map(\.name) == ["X", "Y"])
        #expect(try ben.snapshot.myRole == .host)
        #expect(try ben.snapshot.preList.map(\.name) == ["X", "Y"])
        try await host.log.next("the old host's handle goes") { if case .managerHandle(nil) = $0 { true } else { nil } }
        #expect(try host.snapshot.preList.isEmpty)
        try await handler.ignore()
        let answer = try await ann.log.next("the answer") { if case .helpRequestResult(let result) = $0 { result } else { nil } }
        #expect(answer == .ignored)
        await server.stop()
    }

    @Test func directMessagesRenamesRemovalAndLeaving() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let (annID, benID) = (try ann.id, try ben.id)

        try await ann.session.chat.send("just for you", to: try host.id)
        let (text, sender) = try await host.log.next("the direct message") {
            if case .chatMessage(let message, let sender) = $0 { (message.text, sender?.name) } else { nil }
        }
        #expect(text == "just for you" && sender == "Ann")
        try await ann.session.chat.send("for the room")
        try await ben.log.next("the room message") { SeedWalkthroughTests.chat($0) == "for the room" ? true : nil }
        #expect(!ben.log.values(SeedWalkthroughTests.chat).contains("just for you"))

        try await host.session.userHelper.rename(annID, to: "Annie")
        #expect(try host.snapshot.user(annID)?.name == "Annie")
        try await ann.log.next("renamed") { if case .userRenamed(let user) = $0 { user.name } else { nil } }
        #expect(ann.session.myself?.name == "Annie")

        try await host.session.userHelper.remove(benID)
        let removal = try await ben.log.next("removed") { if case .sessionLeft(let reason) = $0 { reason } else { nil } }
        #expect(removal == .removed)
        #expect(ben.session.connectionState == .disconnected)
        let reason = try await host.log.next("Ben gone") {
            if case .usersLeft(let users, let reason) = $0, users.map(\.id) == [benID] { reason } else { nil }
        }
        #expect(reason == .removed)

        try await ann.session.leave()
        let leaving = try await ann.log.next("left") { if case .sessionLeft(let reason) = $0 { reason } else { nil } }
        #expect(leaving == .left)
        #expect(ann.session.connectionState == .disconnected)
        try await host.log.next("Annie gone") { if case .usersLeft(let users, .left) = $0, users.map(\.name) == ["Annie"] { true } else { nil } }
        let error = await #expect(throws: SessionError.self) { try await ann.session.chat.send("still here?") }
        #expect(error == .notJoined)
        #expect(try host.snapshot.users.map(\.name) == ["Teacher"])
        await server.stop()
    }

    @MainActor
    @Test func theDelegateHearsTheSeedsCallbacksInOrder() async throws {
        let server = try await TestServer.start()
        let recorder = CallbackRecorder()
        let host = Client()
        host.session.delegate = recorder
        try await host.session.join(
            url: server.url, sessionName: "Class", userName: "Teacher", token: try server.token(session: "Class", role: .host))
        let ann = try await server.client("Ann")
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        try await #require(host.session.subsessionManager).start(autoAssign: true)
        try await #require(host.session.subsessionManager).broadcast("hello all")
        try await ann.log.next("the broadcast") { if case .broadcast = $0 { true } else { nil } }
        let expected = ["joined", "manager", "usersJoined Ann", "status committed", "status started", "users Red", "broadcast hello all"]
        for _ in 0..<1500 where recorder.calls.count < expected.count { try await Task.sleep(for: .milliseconds(10)) }
        #expect(recorder.calls == expected)
        await server.stop()
    }
}

@MainActor
final class CallbackRecorder: CaucusSessionDelegate {
    var calls: [String] = []

    func sessionDidJoin(_ session: CaucusSession) { calls.append("joined") }
    func session(_ session: CaucusSession, didReceiveManagerHandle manager: SubsessionManager?) {
        calls.append(manager == nil ? "no manager" : "manager")
    }
    func session(_ session: CaucusSession, usersDidJoin users: [CaucusUser]) {
        calls.append("usersJoined " + users.map(\.name).joined(separator: ","))
    }
    func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser], reason: LeaveReason) {}
    func session(_ session: CaucusSession, subsessionStatusDidChange status: SubsessionStatus, subsessions: [SubsessionKit]) {
        calls.append("status \(status.rawValue)")
    }
    func session(_ session: CaucusSession, subsessionUsersDidUpdate subsession: SubsessionKit) {
        calls.append("users \(subsession.name)")
    }
    func session(_ session: CaucusSession, didReceiveBroadcast message: String, from sender: CaucusUser?) {
        calls.append("broadcast \(message)")
    }
}
