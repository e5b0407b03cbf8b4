import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A node announces `http://127.0.0.1:<port>` as its node URL, so the tests choose its port
/// before it binds it, and another process can bind that port in between.
/// `ServerProcess.onAFreePort` then starts it again on another: it tells that case from every
/// other failure by what the server writes as it ends, which these tests pin down.
@Suite(.serialized) struct ServeOnATakenPortTests {
    @Test func aServerWhosePortIsTakenEndsSayingSoAndAnotherStartFindsAFreeOne() async throws {
        let folder = TestServer.temporaryFolder()
        let first = try await ServerProcess(dataDirectory: folder)
        defer { first.kill(SIGKILL) }
        do {
            let second = try await ServerProcess(dataDirectory: TestServer.temporaryFolder(), arguments: ["--port", "\(first.port)"])
            second.kill(SIGKILL)
            Issue.record("a second server started on the first one's port \(first.port)")
        } catch let error as ServerProcess.ExitedBeforeListening {
            #expect(error.portTaken, "\(error)")
        }
        let other = try await ServerProcess.onAFreePort(dataDirectory: TestServer.temporaryFolder()) { _ in [] }
        defer { other.kill(SIGKILL) }
        #expect(other.port != first.port)
        _ = try await other.joined("Ann")
    }

    @Test func anotherReasonToEndIsNotTakenForATakenPortAndIsReported() async throws {
        // A configuration file that is not JSON: the server ends before it binds anything.
        let folder = TestServer.temporaryFolder()
        _ = FileManager.default.createFile(atPath: folder + "/apps.json", contents: Data("not json".utf8))
        do {
            let server = try await ServerProcess.onAFreePort(dataDirectory: folder) { _ in [] }
            server.kill(SIGKILL)
            Issue.record("a server started on an unreadable configuration")
        } catch let error as ServerProcess.ExitedBeforeListening {
            #expect(!error.portTaken, "\(error)")
            #expect(error.errors.contains("Error:"), "what the server wrote: \(error)")
        }
    }
}
