import CaucusProcessTestSupport
import Foundation
import Testing

/// A session its store fails closes (every client told to reconnect): its recording ends there
/// with the reason, not on with the last picture the media loop had. Rebuilt from the store,
/// the session says again what it records.
@Suite(.serialized) struct StoreFailureRecordingTests {
    @Test func aSessionClosedByAFailedStoreEndsItsRecordingSayingWhy() async throws {
        let server = try await TestServer.start()
        let ann = try await server.joined("Ann", role: .host)
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let timeline = try await api.recordMain(of: id, on: server)
        let lock = try DatabaseLock(path: server.dataDirectory + "/caucus.sqlite")
        defer { lock.release() }
        try await lock.held()
        _ = try await ann.send("chat", ["text": "never stored"])
        while try await ann.nextFrame() != nil {}
        #expect(await ann.closeCode == .some(4006))
        try await within("the recording's end on the timeline") {
            while (try? String(contentsOfFile: timeline, encoding: .utf8))?.contains(#""event":"recordingStopped""#) != true {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let text = try String(contentsOfFile: timeline, encoding: .utf8)
        #expect(text.contains(#""reason":"storeFailed""#), "\(text)")
        await server.stop()
    }
}
