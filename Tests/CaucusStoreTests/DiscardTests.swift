import CaucusCore
import Foundation
import Testing

@testable import CaucusStore

/// A session whose first join was refused leaves no row behind; one with events is never lost.
@Suite("Discarding unstarted sessions")
struct DiscardTests {
    @Test func aSessionWithNoEventIsDeleted() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            let script = SessionScript()
            let id = try await store.createSession(app: "demo", name: script.name, at: script.now)
            try await store.discardSession(id)
            #expect(try await store.history(app: "demo", limit: 10).isEmpty)
            #expect(try await store.liveSessions().isEmpty)
            try await store.close()
        }
    }

    @Test func aSessionWithEventsIsKept() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            var script = SessionScript()
            let id = try await store.createSession(app: "demo", name: script.name, at: script.now)
            let (_, join) = try script.join("Ada", claim: .host)
            try await store.append(join, to: id)
            try await store.discardSession(id)
            #expect(try await store.history(app: "demo", limit: 10).map(\.id) == [id])
            #expect(try await store.liveSessions().map(\.id) == [id])
            try await store.close()
        }
    }
}
