import CaucusAuth
import CaucusCore
import CaucusServer
import CaucusTestSupport
import Foundation
import Testing

/// Issue 38: a console link names one class (one run of a session), not a session's name.
/// Each test is one of the identity findings, and fails on the console from before it.
@Suite(.serialized) struct ConsoleClassLinksTests {
    typealias JSON = [String: Any]

    struct Answer {
        let status: Int
        let json: JSON
        var code: Int? { (json["error"] as? JSON)?["code"] as? Int }
        func string(_ key: String) throws -> String { try #require(json[key] as? String, "\(key) in \(json)") }
    }

    static func post(_ port: Int, _ path: String, _ body: JSON) async throws -> Answer {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let reply = try await RawHTTP.send(port: port, "POST", path, body: text)
        let json = (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? JSON) ?? [:]
        return Answer(status: reply.status, json: json)
    }

    /// A class made on the development app: its id and its two codes.
    static func newClass(_ port: Int, _ session: String) async throws -> (id: String, host: String, participant: String) {
        let made = try await post(port, "/console/class", ["session": session])
        #expect(made.status == 200, "\(made.json)")
        return (try made.string("class"), try made.string("hostInvite"), try made.string("participantInvite"))
    }

    /// Each request is refused with `status` and `code`, and gives nothing.
    static func expectRefused(_ port: Int, _ asked: [(String, JSON)], status: Int, code: Int) async throws {
        for (path, body) in asked {
            let refused = try await post(port, path, body)
            #expect(refused.status == status, "\(path) \(body): \(refused.json)")
            #expect(refused.code == code, "\(path) \(body): \(refused.json)")
            #expect(refused.json["token"] == nil && refused.json["invite"] == nil && refused.json["hostInvite"] == nil)
        }
    }

    static func joined(_ running: RunningServer, _ session: String, _ name: String, token: String) async throws -> TestClient {
        let client = try await TestClient.connect(url: running.webSocketURL)
        try await client.join(session: session, userName: name, token: token)
        return client
    }

    static func roles(in client: TestClient) async -> [String: String] {
        let users = await client.joinSnapshot["users"] as? [[String: any Sendable]] ?? []
        return Dictionary(users.map { ($0["name"] as? String ?? "?", $0["role"] as? String ?? "?") }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aHostCodeMadeBeforeTheClassIsRefusedOnceSomeoneElseStartedIt() async throws {
        let running = try await RunningServer.start(apps: [])
        let port = running.port
        // A student asks for "Period 4" before the teacher starts it, and keeps the codes.
        let student = try await Self.newClass(port, "Period 4")
        // The teacher starts the class and joins as its host.
        let teacher = try await Self.newClass(port, "Period 4")
        #expect(teacher.id != student.id)
        let hostToken = try await Self.post(port, "/console/token", ["session": "Period 4", "invite": teacher.host])
        #expect(hostToken.status == 200, "\(hostToken.json)")
        let host = try await Self.joined(running, "Period 4", "Ms Rivera", token: try hostToken.string("token"))
        // The student's host code opens nothing: it was for a class that never ran.
        for path in ["/console/token", "/console/dev/token"] {
            let refused = try await Self.post(port, path, ["session": "Period 4", "invite": student.host])
            #expect(refused.status == 410, "\(path): \(refused.json)")
            #expect(refused.code == 1023, "\(path): \(refused.json)")
            #expect(refused.json["token"] == nil)
        }
        let personal = try await Self.post(port, "/console/person", ["session": "Period 4", "invite": student.host, "name": "Mal"])
        #expect(personal.code == 1023, "\(personal.json)")
        let participant = try await Self.post(port, "/console/token", ["session": "Period 4", "invite": student.participant])
        #expect(participant.code == 1023, "\(participant.json)")
        // Nobody gets codes for the running class: not by asking for its name again.
        for name in ["Period 4", "PERIOD 4"] {
            let again = try await Self.post(port, "/console/class", ["session": name])
            #expect(again.status == 409, "\(name)")
            #expect(again.code == 1021, "\(name): \(again.json)")
            #expect(again.json["hostInvite"] == nil)
        }
        // The teacher's class has its host and no one else.
        let sessions = try await ControlAPI(port: port, app: try #require(running.server.developmentApp)).sessions()
        #expect(sessions.first?.int("users") == 1)
        await host.close()
        await running.stop()
    }

    @Test func aClassRestartedUnderTheTeachersNameDoesNotReceiveOldLinks() async throws {
        let running = try await RunningServer.start(apps: [])
        let port = running.port
        let yesterday = try await Self.newClass(port, "Period 4")
        let hostToken = try await Self.post(port, "/console/token", ["session": "Period 4", "invite": yesterday.host])
        let teacher = try await Self.joined(running, "Period 4", "Ms Rivera", token: try hostToken.string("token"))
        let boToken = try await Self.post(port, "/console/token", ["session": "Period 4", "invite": yesterday.participant])
        #expect(boToken.status == 200, "\(boToken.json)")
        let bo = try await Self.joined(running, "Period 4", "Bo", token: try boToken.string("token"))
        let personal = try await Self.post(port, "/console/person", ["session": "Period 4", "invite": yesterday.host, "name": "Cy"])
        let cyCode = try personal.string("invite")
        // The teacher ends the class.
        _ = try await teacher.send("leave", ["endSession": true])
        #expect(try await bo.closed() == 4002)
        // A student starts a class under the same name and hosts it.
        let squatter = try await Self.newClass(port, "Period 4")
        let squatterToken = try await Self.post(port, "/console/token", ["session": "Period 4", "invite": squatter.host])
        let mal = try await Self.joined(running, "Period 4", "Mal", token: try squatterToken.string("token"))
        // Yesterday's links say the class ended, and give no token into his session.
        let asked: [(String, JSON)] = [
            ("/console/token", ["session": "Period 4", "invite": yesterday.participant]),
            ("/console/token", ["session": "Period 4", "invite": yesterday.host]),
            ("/console/token", ["session": "Period 4", "invite": yesterday.host, "takeOver": true]),
            ("/console/token", ["session": "Period 4", "invite": cyCode, "name": "Cy", "browser": "b"]),
            ("/console/person", ["session": "Period 4", "invite": yesterday.host, "name": "Dee"]),
            ("/console/host-link", ["session": "Period 4", "invite": yesterday.host]),
        ]
        try await Self.expectRefused(port, asked, status: 410, code: 1023)
        let sessions = try await ControlAPI(port: port, app: try #require(running.server.developmentApp)).sessions()
        #expect(sessions.first?.int("users") == 1)
        // After a restart the ended class is still ended (the server remembers it in its data folder).
        await mal.close()
        await running.stop()
        let again = try await RunningServer.start(apps: [], dataDirectory: running.dataDirectory)
        let afterRestart = try await Self.post(again.port, "/console/token", ["session": "Period 4", "invite": yesterday.host])
        #expect(afterRestart.code == 1023, "\(afterRestart.json)")
        await again.stop()
    }

    @Test func aHostLinkReplayedWhileItsHostIsInAsksToTakeOverAndNeverMintsAManager() async throws {
        let running = try await RunningServer.start(apps: [])
        let port = running.port
        let made = try await Self.newClass(port, "Period 5")
        let first = try await Self.post(port, "/console/token", ["session": "Period 5", "invite": made.host])
        let teacher = try await Self.joined(running, "Period 5", "Ms Rivera", token: try first.string("token"))
        let boToken = try await Self.post(port, "/console/token", ["session": "Period 5", "invite": made.participant])
        let bo = try await Self.joined(running, "Period 5", "Bo", token: try boToken.string("token"))
        // The host link opened again (another browser, or someone who saw it): a question, no token.
        let replayed = try await Self.post(port, "/console/token", ["session": "Period 5", "invite": made.host])
        #expect(replayed.status == 409, "\(replayed.json)")
        #expect(replayed.code == 1025, "\(replayed.json)")
        #expect(replayed.json["token"] == nil)
        // Taking the seat over: the newcomer is the host, the old seat leaves (closed 4004 replaced), nobody is a manager.
        let taken = try await Self.post(port, "/console/token", ["session": "Period 5", "invite": made.host, "takeOver": true])
        #expect(taken.status == 200, "\(taken.json)")
        let newcomer = try await Self.joined(running, "Period 5", "Ms Rivera (laptop)", token: try taken.string("token"))
        #expect(await Self.roles(in: newcomer) == ["Ms Rivera (laptop)": "host", "Bo": "participant"])
        #expect(try await teacher.closed() == 4004, "the old host page is told its seat was taken over (replaced), not that it was removed")
        let left = try await bo.event("userLeft")
        #expect((left["event"] as? [String: any Sendable])?["reason"] as? String == "removed")
        // The host token itself, replayed with its identity while the host is in, takes the seat
        // over in the protocol too: never a second, managing host.
        let replayedToken = try await Self.joined(running, "Period 5", "Ms Rivera (phone)", token: try taken.string("token"))
        #expect(await Self.roles(in: replayedToken) == ["Ms Rivera (phone)": "host", "Bo": "participant"])
        #expect(try await newcomer.closed() == 4004)
        await replayedToken.close()
        await bo.close()
        await running.stop()
    }

    @Test func aReplacedHostLinkIsRefusedAtOnce() async throws {
        let running = try await RunningServer.start(apps: [])
        let port = running.port
        let made = try await Self.newClass(port, "Period 6")
        let first = try await Self.post(port, "/console/token", ["session": "Period 6", "invite": made.host])
        let teacher = try await Self.joined(running, "Period 6", "Ms Rivera", token: try first.string("token"))
        // Only the host link replaces itself.
        for code in [made.participant, "not a code"] {
            let refused = try await Self.post(port, "/console/host-link", ["session": "Period 6", "invite": code])
            #expect(refused.code == 2018, "\(refused.json)")
        }
        let replaced = try await Self.post(port, "/console/host-link", ["session": "Period 6", "invite": made.host])
        #expect(replaced.status == 200, "\(replaced.json)")
        #expect(try replaced.string("class") == made.id)
        let newHost = try replaced.string("hostInvite")
        #expect(newHost != made.host)
        // The old link is refused everywhere, at once.
        let asked: [(String, JSON)] = [
            ("/console/token", ["session": "Period 6", "invite": made.host]),
            ("/console/token", ["session": "Period 6", "invite": made.host, "takeOver": true]),
            ("/console/person", ["session": "Period 6", "invite": made.host, "name": "Dee"]),
            ("/console/host-link", ["session": "Period 6", "invite": made.host]),
        ]
        try await Self.expectRefused(port, asked, status: 403, code: 1024)
        // The new one works (and asks before taking the seat), the participant link still does.
        #expect(try await Self.post(port, "/console/token", ["session": "Period 6", "invite": newHost]).code == 1025)
        #expect(try await Self.post(port, "/console/person", ["session": "Period 6", "invite": newHost, "name": "Dee"]).status == 200)
        #expect(try await Self.post(port, "/console/token", ["session": "Period 6", "invite": made.participant]).status == 200)
        // And it stays refused after a restart.
        await teacher.close()
        await running.stop()
        let again = try await RunningServer.start(apps: [], dataDirectory: running.dataDirectory)
        let afterRestart = try await Self.post(again.port, "/console/host-link", ["session": "Period 6", "invite": made.host])
        #expect(afterRestart.code == 1024, "\(afterRestart.json)")
        await again.stop()
    }

    /// A host token given before the host link was replaced is refused at the join, not only
    /// the old link: whoever had opened the old link cannot take the seat with the token it
    /// was given (it lives ten minutes). The teacher's own seat, and the new link's tokens, go on.
    @Test func aHostTokenGivenBeforeItsLinkWasReplacedIsRefusedAtTheJoin() async throws {
        let running = try await RunningServer.start(apps: [])
        let port = running.port
        let made = try await Self.newClass(port, "Period 8")
        // Someone who saw the link asks for a host token and keeps it; the teacher opens the class.
        let kept = try await Self.post(port, "/console/token", ["session": "Period 8", "invite": made.host])
        let keptToken = try kept.string("token")
        let mine = try await Self.post(port, "/console/token", ["session": "Period 8", "invite": made.host])
        let teacher = try await Self.joined(running, "Period 8", "Ms Rivera", token: try mine.string("token"))
        // The teacher replaces the link.
        let replaced = try await Self.post(port, "/console/host-link", ["session": "Period 8", "invite": made.host])
        #expect(replaced.status == 200, "\(replaced.json)")
        // The kept token no longer takes the seat: 1024, and the teacher stays the host.
        let intruder = try await TestClient.connect(url: running.webSocketURL)
        let code = try await intruder.refused("join", ["session": "Period 8", "userName": "Ms Rivera (2)", "token": keptToken])
        #expect(code == 1024)
        #expect(await Self.roles(in: teacher) == ["Ms Rivera": "host"])
        try await teacher.request("ping")
        // The new link's token does (taking the seat over, as the same host from another browser).
        let renewed = try await Self.post(port, "/console/token", ["session": "Period 8", "invite": try replaced.string("hostInvite"), "takeOver": true])
        #expect(renewed.status == 200, "\(renewed.json)")
        let laptop = try await Self.joined(running, "Period 8", "Ms Rivera (laptop)", token: try renewed.string("token"))
        #expect(await Self.roles(in: laptop) == ["Ms Rivera (laptop)": "host"])
        await intruder.close()
        await laptop.close()
        await teacher.close()
        await running.stop()
    }

    /// A replaced host link's successor ends with its class's record (48 hours from the class's
    /// making), not 48 hours from its own: the record is what refuses replaced links, and it is
    /// dropped then. Before, a link replaced on the first day kept opening the class as its
    /// host for a day after the record was gone (the server's clock is moved by the test).
    @Test func aReplacedHostLinkNeverOutlivesItsClassRecord() async throws {
        let clock = SkippingClock()
        let running = try await RunningServer.start(apps: [], clock: clock.serverClock)
        let port = running.port
        let made = try await Self.newClass(port, "Period 9")
        clock.skip(.seconds(10 * 3600))
        let first = try await Self.post(port, "/console/host-link", ["session": "Period 9", "invite": made.host])
        let firstReplacement = try first.string("hostInvite")
        clock.skip(.seconds(10 * 3600))
        let second = try await Self.post(port, "/console/host-link", ["session": "Period 9", "invite": firstReplacement])
        #expect(second.status == 200, "\(second.json)")
        // Refused while the record says it was replaced.
        try await Self.expectRefused(port, [("/console/token", ["session": "Period 9", "invite": firstReplacement])], status: 403, code: 1024)
        // Past the record's keeping (48 h and the opening's 10 min), with the record dropped (a
        // new class prunes the book), every host link of the class is refused, the replaced one too.
        clock.skip(.seconds(28 * 3600 + 11 * 60))
        _ = try await Self.newClass(port, "Period 10")
        for code in [made.host, firstReplacement, try second.string("hostInvite")] {
            try await Self.expectRefused(port, [("/console/token", ["session": "Period 9", "invite": code])], status: 400, code: 1020)
        }
        await running.stop()
    }

    @Test func aClassLinkIsBoundToItsClassNameAndApp() async throws {
        let running = try await RunningServer.start(apps: [])
        let port = running.port
        let made = try await Self.newClass(port, "Period 7")
        let development = try #require(running.server.developmentApp)
        let now = Instant.wallClock()
        // A code of another app's secret, an old-style code without a class, and a code for another name: 1020.
        let foreign = AppCredentials(key: development.key, secret: "another secret")
        let forged = try ConsoleClassCodes.code(session: "Period 7", classID: made.id, role: .host, app: foreign, at: now)
        let classless = try TokenMinter.mint(
            app: AppCredentials(key: development.key, secret: "caucus-console-class:" + development.secret), sessionName: "Period 7",
            role: .host, issuedAt: now, lifetimeSeconds: 3600)
        for (session, code) in [("Period 7", forged), ("Period 7", classless), ("Period 8", made.host)] {
            let refused = try await Self.post(port, "/console/token", ["session": session, "invite": code])
            #expect(refused.status == 400, "\(session)")
            #expect(refused.code == 1020, "\(session): \(refused.json)")
        }
        // A bad request changes nothing: the class still opens with its own host link.
        #expect(try await Self.post(port, "/console/token", ["session": "Period 7", "invite": made.participant]).code == 1022)
        let opened = try await Self.post(port, "/console/token", ["session": "Period 7", "invite": made.host])
        #expect(opened.status == 200, "\(opened.json)")
        #expect(try opened.string("participantInvite").isEmpty == false)
        await running.stop()
    }
}
