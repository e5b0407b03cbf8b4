import CaucusAuth
import CaucusCore
import CaucusServer
import CaucusStore
import CaucusStoreSQLite
import CaucusTestSupport
import Foundation
import Testing

/// The console's class book lives in the session store (here the data folder's SQLite file),
/// not in a file of its own: it survives a restart, and a `console-classes.json` an older
/// server left is imported once at start and renamed aside (docs/console.md, "Where classes
/// are kept").
@Suite(.serialized) struct ConsoleClassBookStoreTests {
    typealias JSON = [String: Any]
    typealias Links = ConsoleClassLinksTests

    static func storedClass(_ id: String, in folder: String) async throws -> ConsoleClassRecord? {
        let store = try await SQLiteSessionStore.open(path: folder + "/caucus.sqlite")
        let record = try await store.consoleClass(id)
        try await store.close()
        return record
    }

    @Test func theBookIsTheStoresAndSurvivesARestart() async throws {
        let running = try await RunningServer.start(apps: [])
        let made = try await Links.newClass(running.port, "Period 6")
        let rotated = try await Links.post(running.port, "/console/host-link", ["session": "Period 6", "invite": made.host])
        #expect(rotated.status == 200, "\(rotated.json)")
        let newHost = try rotated.string("hostInvite")
        await running.stop()

        // Nothing beside the store: the class and its host link's generation are rows of it.
        #expect(!FileManager.default.fileExists(atPath: running.dataDirectory + "/console-classes.json"))
        let stored = try #require(try await Self.storedClass(made.id, in: running.dataDirectory))
        #expect(stored.session == "Period 6" && stored.hostGeneration == 1 && stored.state == .opened)

        let again = try await RunningServer.start(apps: [], dataDirectory: running.dataDirectory)
        try await Links.expectRefused(again.port, [("/console/token", ["session": "Period 6", "invite": made.host])], status: 403, code: 1024)
        let opened = try await Links.post(again.port, "/console/token", ["session": "Period 6", "invite": newHost])
        #expect(opened.status == 200, "\(opened.json)")
        // A second class of the name is refused while this one is opening, after the restart too.
        let second = try await Links.post(again.port, "/console/class", ["session": "PERIOD 6"])
        #expect(second.code == 1021, "\(second.json)")
        await again.stop()
    }

    @Test func anOldBookFileIsImportedOnceAndRenamedAside() async throws {
        // A data folder of an older server: its development app, and its class book file.
        let first = try await RunningServer.start(apps: [])
        let app = try #require(first.server.developmentApp)
        await first.stop()
        let folder = first.dataDirectory
        let now = Instant.wallClock()
        let (ended, rotated, expired) = (ConsoleClassCodes.newClassID(), ConsoleClassCodes.newClassID(), ConsoleClassCodes.newClassID())
        let records = [
            ConsoleClassRecord(app: app.key, session: "Period 1", id: ended, state: .ended, hostGeneration: 0, createdAt: now.milliseconds - 60_000, seenRunning: true),
            ConsoleClassRecord(app: app.key, session: "Period 2", id: rotated, state: .opened, hostGeneration: 2, createdAt: now.milliseconds - 60_000),
            ConsoleClassRecord(
                app: app.key, session: "Period 3", id: expired, state: .opened, hostGeneration: 0,
                createdAt: now.milliseconds - Int64(ConsoleClassCodes.lifetimeSeconds + 3600) * 1000),
        ]
        let file = folder + "/console-classes.json"
        #expect(FileManager.default.createFile(atPath: file, contents: try JSONEncoder().encode(records)))

        let running = try await RunningServer.start(apps: [], dataDirectory: folder)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(FileManager.default.fileExists(atPath: file + ".imported"))
        func code(_ session: String, _ id: String, _ role: RoleClaim, generation: Int = 0) throws -> String {
            try ConsoleClassCodes.code(session: session, classID: id, role: role, generation: generation, app: app, at: now)
        }
        // The ended class stays ended; the replaced host links stay refused; the newest works.
        try await Links.expectRefused(
            running.port,
            [
                ("/console/token", ["session": "Period 1", "invite": try code("Period 1", ended, .host)]),
                ("/console/token", ["session": "Period 1", "invite": try code("Period 1", ended, .participant)]),
            ], status: 410, code: 1023)
        try await Links.expectRefused(
            running.port,
            [
                ("/console/token", ["session": "Period 2", "invite": try code("Period 2", rotated, .host, generation: 0)]),
                ("/console/host-link", ["session": "Period 2", "invite": try code("Period 2", rotated, .host, generation: 1)]),
            ], status: 403, code: 1024)
        let newest = try await Links.post(running.port, "/console/token", ["session": "Period 2", "invite": try code("Period 2", rotated, .host, generation: 2)])
        #expect(newest.status == 200, "\(newest.json)")
        await running.stop()
        // A record whose codes expired is not brought in.
        #expect(try await Self.storedClass(expired, in: folder) == nil)
        #expect(try await Self.storedClass(rotated, in: folder)?.hostGeneration == 2)

        // Once: a file put back later (a restored backup) is imported again, merged, never
        // undoing what the store learnt since (the class ended, the link was replaced).
        let later = try await RunningServer.start(apps: [], dataDirectory: folder)
        let replaced = try await Links.post(later.port, "/console/host-link", ["session": "Period 2", "invite": try code("Period 2", rotated, .host, generation: 2)])
        #expect(replaced.status == 200, "\(replaced.json)")
        await later.stop()
        try FileManager.default.moveItem(atPath: file + ".imported", toPath: file)
        let restored = try await RunningServer.start(apps: [], dataDirectory: folder)
        try await Links.expectRefused(
            restored.port, [("/console/token", ["session": "Period 2", "invite": try code("Period 2", rotated, .host, generation: 2)])],
            status: 403, code: 1024)
        await restored.stop()
    }
}
