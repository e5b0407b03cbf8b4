import CaucusCore
import Foundation
import Testing

@testable import CaucusStore

@Suite("Session history")
struct HistoryTests {
    private func at(_ seconds: Int) -> Instant { Instant.testEpoch.adding(seconds: seconds) }

    @Test func historyFollowsJoinsRenamesLeavesAndTheEnd() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            var script = SessionScript()
            let id = try await store.createSession(app: "demo", name: script.name, at: script.now)
            func step(_ batch: [SequencedEvent]) async throws {
                try await store.append(batch, to: id)
                script.advance(seconds: 1)
            }
            let (ada, adaJoin) = try script.join("Ada", claim: .host)
            try await step(adaJoin)  // t0
            let (bob, bobJoin) = try script.join("Bob")
            try await step(bobJoin)  // t1
            let (cy, cyJoin) = try script.join("Cy")
            try await step(cyJoin)  // t2
            try await step(try script.run(.rename(bob, to: "Robert"), by: bob))  // t3
            try await step(try script.run(.leave(endSession: false), by: cy))  // t4
            let (dee, deeJoin) = try script.join("Dee")
            try await step(deeJoin)  // t5
            try await step(try script.run(.remove(dee), by: ada))  // t6

            let midway = try await store.history(app: "demo", limit: 10)
            #expect(midway.first?.endedAt == nil)
            #expect(midway.first?.users.first { $0.userID == ada }?.leftAt == nil)

            try await step(try script.run(.endSession, by: ada))  // t7
            let history = try await store.history(app: "demo", limit: 10)
            let expected = SessionHistory(
                id: id, app: "demo", name: "Class", startedAt: at(0), endedAt: at(7), endReason: "endedByHost",
                users: [
                    UserHistory(userID: ada, name: "Ada", joinedAt: at(0), leftAt: at(7), leaveReason: "sessionEnded"),
                    UserHistory(userID: bob, name: "Robert", joinedAt: at(1), leftAt: at(7), leaveReason: "sessionEnded"),
                    UserHistory(userID: cy, name: "Cy", joinedAt: at(2), leftAt: at(4), leaveReason: "left"),
                    UserHistory(userID: dee, name: "Dee", joinedAt: at(5), leftAt: at(6), leaveReason: "removed"),
                ])
            #expect(history == [expected])
            try await store.close()
        }
    }

    @Test func theLastUserLeavingEndsTheSessionWithTheirOwnReason() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            var script = SessionScript()
            let id = try await store.createSession(app: "demo", name: script.name, at: script.now)
            let (ada, join) = try script.join("Ada", claim: .host)
            try await store.append(join, to: id)
            script.advance(seconds: 30)
            // One batch: userLeft then sessionEnded(everyoneLeft), as the core decides it.
            try await store.append(try script.run(.leave(endSession: false), by: ada), to: id)

            let history = try await store.history(app: "demo", limit: 1)
            #expect(history.first?.endReason == "everyoneLeft")
            #expect(history.first?.endedAt == at(30))
            #expect(history.first?.users == [UserHistory(userID: ada, name: "Ada", joinedAt: at(0), leftAt: at(30), leaveReason: "left")])
            #expect(try await store.liveSessions().isEmpty)
            try await store.close()
        }
    }

    @Test func historyIsPerAppNewestFirstAndLimited() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            // Created out of order, so that newest-first cannot be mistaken for id order.
            let sessions: [(app: String, name: String, start: Int)] = [
                ("alpha", "a2", 20), ("alpha", "a1", 10), ("beta", "b1", 25), ("alpha", "a4", 40), ("alpha", "a3", 30),
            ]
            for session in sessions {
                var script = SessionScript(name: session.name, startingAt: at(session.start))
                let id = try await store.createSession(app: session.app, name: session.name, at: script.now)
                try await store.append(try script.join("Host of \(session.name)", claim: .host).1, to: id)
            }

            let alpha = try await store.history(app: "alpha", limit: 3)
            #expect(alpha.map(\.name) == ["a4", "a3", "a2"])
            #expect(alpha.map(\.startedAt) == [at(40), at(30), at(20)])
            #expect(alpha.map { $0.users.map(\.name) } == [["Host of a4"], ["Host of a3"], ["Host of a2"]])
            #expect(try await store.history(app: "alpha", limit: 10).map(\.name) == ["a4", "a3", "a2", "a1"])
            #expect(try await store.history(app: "beta", limit: 10).map(\.name) == ["b1"])
            #expect(try await store.history(app: "gamma", limit: 10).isEmpty)
            #expect(try await store.history(app: "alpha", limit: 0).isEmpty)
            try await store.close()
        }
    }

    @Test func historyEncodesIdsAsPlainNumbers() throws {
        let history = SessionHistory(
            id: StoredSessionID(rawValue: 7), app: "demo", name: "Class", startedAt: at(0), endedAt: nil, endReason: nil,
            users: [UserHistory(userID: UserID(1), name: "Ada", joinedAt: at(0), leftAt: nil, leaveReason: nil)])
        let json = try JSONEncoder().encode(history)
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        #expect(object?["id"] as? Int == 7)
        #expect(try JSONDecoder().decode(SessionHistory.self, from: json) == history)
    }
}
