import Caucus
import CaucusCore
import Foundation
import NIOConcurrencyHelpers
import Testing

/// A private session: need-password and password-wrong reach the join's hook (or the
/// delegate), which may answer with another password on the same connection or give up.
@Suite struct PasswordTests {
    @Test func theHookIsAskedUntilThePasswordIsRightOnTheSameConnection() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", session: "Private", role: .host, password: "sesame")
        let prompts = NIOLockedValueBox<[PasswordPrompt]>([])
        let ann = try await server.client("Ann", session: "Private") { prompt in
            prompts.withLockedValue { $0.append(prompt) }
            return prompt == .needed ? "wrong" : "sesame"
        }
        #expect(prompts.withLockedValue { $0 } == [.needed, .wrong])
        #expect(try ann.snapshot.users.map(\.name) == ["Teacher", "Ann"])
        // The log fills from the event stream in a task of its own: wait for the join to reach it.
        try await ann.log.next("Ann's join") { if case .sessionJoined = $0 { true } else { nil } }
        let order = ann.log.all.compactMap { event -> String? in
            switch event {
            case .needPassword: "need"
            case .passwordWrong: "wrong"
            case .sessionJoined: "joined"
            default: nil
            }
        }
        #expect(order == ["need", "wrong", "joined"])
        try await host.log.next("Ann joins") { if case .usersJoined(let users) = $0, users.map(\.name) == ["Ann"] { true } else { nil } }
        await server.stop()
    }

    @Test func withoutAnAnswerTheJoinFailsWithTheServersError() async throws {
        let server = try await TestServer.start()
        _ = try await server.client("Teacher", session: "Private", role: .host, password: "sesame")
        let ben = Client()
        let error = await #expect(throws: SessionError.self) {
            try await ben.session.join(
                url: server.url, sessionName: "Private", userName: "Ben", token: try server.token(session: "Private", role: .participant))
        }
        #expect(error?.code == .needPassword)
        #expect(error?.serverError?.name == "needPassword")
        #expect(ben.session.connectionState == .disconnected)
        #expect(ben.session.snapshot == nil)
        // The same object may try again, with the password.
        try await ben.session.join(
            url: server.url, sessionName: "Private", userName: "Ben", token: try server.token(session: "Private", role: .participant),
            password: "sesame")
        #expect(ben.session.connectionState == .connected)
        await server.stop()
    }

    @MainActor
    @Test func theDelegateIsAskedWhenTheJoinHasNoHook() async throws {
        let server = try await TestServer.start()
        _ = try await server.client("Teacher", session: "Private", role: .host, password: "sesame")
        let delegate = PasswordDelegate()
        let cy = Client()
        cy.session.delegate = delegate
        try await cy.session.join(
            url: server.url, sessionName: "Private", userName: "Cy", token: try server.token(session: "Private", role: .participant),
            password: "guess")
        #expect(delegate.asked == ["wrong"])
        // The delegate hears the join on the main actor, which this test runs on.
        for _ in 0..<1500 where !delegate.joined { try await Task.sleep(for: .milliseconds(10)) }
        #expect(delegate.joined)
        await server.stop()
    }
}

@MainActor
final class PasswordDelegate: CaucusSessionDelegate {
    var asked: [String] = []
    var joined = false

    func sessionNeedsPassword(_ session: CaucusSession) async -> String? {
        asked.append("needed")
        return "sesame"
    }

    func sessionPasswordWasWrong(_ session: CaucusSession) async -> String? {
        asked.append("wrong")
        return "sesame"
    }

    func sessionDidJoin(_ session: CaucusSession) { joined = true }
    func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser], reason: LeaveReason) {}
}
