import CaucusCore
import CaucusStore
import Testing

/// Session history, projected from the events in the same transaction, on every store.
@Suite("Conformance: session history")
struct HistoryConformanceTests {
    private func at(_ seconds: Int) -> Instant { Instant.testEpoch.adding(seconds: seconds) }

    @Test(arguments: StoreKind.allCases)
    func historyFollowsJoinsRenamesLeavesAndTheEnd(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var script = SessionScript()
            let (ada, adaJoin) = try script.join("Ada", claim: .host)
            let id = try await store.start(script, firstBatch: adaJoin)  // t0
            script.advance(seconds: 1)
            func step(_ batch: [SequencedEvent]) async throws {
                try await store.append(batch, to: id)
                script.advance(seconds: 1)
            }
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
        }
    }

    /// A batch as a join storm makes it: many joins, and a rename and a leave of users who
    /// joined in the same batch.
    @Test(arguments: StoreKind.allCases)
    func oneBatchOfJoinsRenamesAndLeavesProjectsLikeOneBatchEach(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var script = SessionScript()
            var batch: [SequencedEvent] = []
            var users: [UserID] = []
            for index in 0..<30 {
                let (user, join) = try script.join("User \(index)", claim: index == 0 ? .host : .participant)
                batch += join
                users.append(user)
            }
            batch += try script.run(.rename(users[3], to: "Renamed"), by: users[3])
            batch += try script.run(.leave(endSession: false), by: users[5])
            let (late, lateJoin) = try script.join("Late")
            batch += lateJoin
            let id = try await store.start(script, firstBatch: batch)
            let history = try #require(try await store.history(app: "demo", limit: 1).first)
            #expect(history.id == id)
            #expect(history.users.count == 31)
            #expect(history.users.map(\.userID) == users + [late], "in join order")
            #expect(history.users.first { $0.userID == users[3] }?.name == "Renamed")
            #expect(history.users.first { $0.userID == users[5] }?.leaveReason == "left")
            #expect(history.users.filter { $0.leftAt != nil }.map(\.userID) == [users[5]])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theLastUserLeavingEndsTheSessionWithTheirOwnReason(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var script = SessionScript()
            let (ada, join) = try script.join("Ada", claim: .host)
            let id = try await store.start(script, firstBatch: join)
            script.advance(seconds: 30)
            // One batch: userLeft then sessionEnded(everyoneLeft), as the core decides it.
            try await store.append(try script.run(.leave(endSession: false), by: ada), to: id)

            let history = try await store.history(app: "demo", limit: 1)
            #expect(history.first?.endReason == "everyoneLeft")
            #expect(history.first?.endedAt == at(30))
            #expect(history.first?.users == [UserHistory(userID: ada, name: "Ada", joinedAt: at(0), leftAt: at(30), leaveReason: "left")])
            #expect(try await store.liveSessions().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func historyIsPerAppNewestFirstAndLimited(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            // Created out of order, so that newest-first cannot be mistaken for id order.
            let sessions: [(app: String, name: String, start: Int)] = [
                ("alpha", "a2", 20), ("alpha", "a1", 10), ("beta", "b1", 25), ("alpha", "a4", 40), ("alpha", "a3", 30),
            ]
            for session in sessions {
                var script = SessionScript(name: session.name, startingAt: at(session.start))
                _ = try await store.start(app: session.app, script, firstBatch: try script.join("Host of \(session.name)", claim: .host).1)
            }

            let alpha = try await store.history(app: "alpha", limit: 3)
            #expect(alpha.map(\.name) == ["a4", "a3", "a2"])
            #expect(alpha.map(\.startedAt) == [at(40), at(30), at(20)])
            #expect(alpha.map { $0.users.map(\.name) } == [["Host of a4"], ["Host of a3"], ["Host of a2"]])
            #expect(try await store.history(app: "alpha", limit: 10).map(\.name) == ["a4", "a3", "a2", "a1"])
            #expect(try await store.history(app: "beta", limit: 10).map(\.name) == ["b1"])
            #expect(try await store.history(app: "gamma", limit: 10).isEmpty)
            #expect(try await store.history(app: "alpha", limit: 0).isEmpty)
        }
    }
}
