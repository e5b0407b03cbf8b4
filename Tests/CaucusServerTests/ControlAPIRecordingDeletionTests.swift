import CaucusCore
import CaucusRecording
import Foundation
import Testing

@testable import CaucusServer

/// Deleting recordings over HTTP, beyond the plain case: the app's quota goes on counting what
/// is left, and a link planted as a live session's folder is never followed.
extension ControlAPITests {
    /// Writes `bytes` bytes of a file into `location` of `session`, recorded for `app`.
    static func plantRecording(_ layout: RecordingLayout, app: String, session: Int64, bytes: Int) throws {
        let record = RecordingSessionRecord(app: app, session: session, name: "Class \(session)", createdAt: 0)
        let folder = try layout.prepare(record, location: .main)
        _ = FileManager.default.createFile(atPath: folder + "/u1-audio-0.webm", contents: Data(repeating: 7, count: bytes))
    }

    @Test func aDeletionLeavesTheQuotaCountingWhatIsLeftOnDisk() async throws {
        let server = try await TestServer.start { $0.recordingQuota = 1 << 30 }
        let app = server.app.key
        let layout = RecordingLayout(dataDirectory: server.dataDirectory)
        try Self.plantRecording(layout, app: app, session: 9_001, bytes: 60_000)
        try Self.plantRecording(layout, app: app, session: 9_002, bytes: 30_000)
        let quota = server.server.media.recording.quota
        let before = quota.usage(of: app, layout: layout)
        #expect(before >= 90_000, "both sessions' files and records are counted: \(before)")

        let deleted = try await ControlAPI(server).send("DELETE", "/v1/sessions/9002/recordings")
        #expect(deleted.status == 200, "\(deleted.body)")
        // A recording going on counts its next cluster before anyone asks for the app's use:
        // it adds to what is left (session 9001), not to nothing.
        #expect(quota.add(1_000, app: app))
        let after = quota.usage(of: app, layout: layout)
        #expect(after == RecordingQuota.measure(app: app, layout: layout) + 1_000, "\(after)")
        #expect(after >= 61_000 && after < before, "\(after) against \(before) before")
        await server.stop()
    }

    /// A location is moved aside, then removed: nothing of it is left, and what an earlier
    /// deletion moved aside and could not remove goes with the next.
    @Test func aDeletionLeavesNothingAside() async throws {
        let server = try await TestServer.start()
        let layout = RecordingLayout(dataDirectory: server.dataDirectory)
        try Self.plantRecording(layout, app: server.app.key, session: 9_003, bytes: 1_000)
        let leftover = layout.sessionFolder(9_003) + "/.deleting-main-earlier"
        try FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: leftover + "/u1-audio-0.webm", contents: Data(repeating: 1, count: 10))
        let deleted = try await ControlAPI(server).send("DELETE", "/v1/sessions/9003/recordings/main")
        #expect(deleted.status == 200 && deleted.json["deleted"] as? [String] == ["main"], "\(deleted.body)")
        let left = try FileManager.default.contentsOfDirectory(atPath: layout.sessionFolder(9_003))
        #expect(left == [RecordingLayout.sessionFileName], "\(left)")
        await server.stop()
    }

    @Test func aLinkPlantedAsALiveSessionsFolderIsNeverFollowedByADeletion() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        // The live session has recorded nothing: its folder is a link to a folder elsewhere.
        let outside = server.dataDirectory + "/outside"
        try FileManager.default.createDirectory(atPath: outside + "/main", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: outside + "/main/keep.webm", contents: Data("keep".utf8))
        let root = RecordingLayout(dataDirectory: server.dataDirectory).root
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/\(id)", withDestinationPath: outside)

        let one = try await api.send("DELETE", "/v1/sessions/\(id)/recordings/main")
        #expect(one.status == 404, "\(one.status) \(one.body)")
        let all = try await api.send("DELETE", "/v1/sessions/\(id)/recordings")
        #expect(all.status == 200 && (all.json["deleted"] as? [Any])?.isEmpty == true, "\(all.status) \(all.body)")
        #expect(FileManager.default.fileExists(atPath: outside + "/main/keep.webm"), "the deletion followed the link")
        _ = teacher
        await server.stop()
    }
}
