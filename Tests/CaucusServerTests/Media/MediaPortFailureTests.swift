import CaucusAuth
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
@testable import CaucusServer

/// A media socket that closes on its own (SwiftNIO closes a datagram channel on a write error it
/// cannot pin on one datagram, such as a kernel refusing a run, `--media-gso`) is logged as an
/// error that says what to try; the server's own close of the port is not.
@Suite(.serialized) struct MediaPortFailureTests {
    @Test func aSocketThatClosesOnItsOwnIsLoggedWithWhatToTry() async throws {
        let (server, records) = try await Self.open(offload: .on)
        await server.media.breakSockets()
        let logged = try await within("the error logged") {
            while true {
                if let record = records.all.first { return record }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(logged.level == .error)
        #expect(logged.message.contains("media port's socket closed"))
        #expect(logged.metadata["hint"]?.contains("--media-gso off") == true)
        await server.closeMedia()
    }

    @Test func theServersOwnCloseLogsNothing() async throws {
        let (server, records) = try await Self.open(offload: .on)
        await server.closeMedia()
        try await Task.sleep(for: .milliseconds(100))
        #expect(records.all.isEmpty)
    }

    private static func open(offload: MediaSegmentationOffload) async throws -> (SessionServer, RecordedLogs) {
        let records = RecordedLogs()
        let logger = records.logger(level: .error)
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: NSTemporaryDirectory() + "caucus-\(UUID().uuidString)")
        configuration.mediaSegmentationOffload = offload
        return (try await SessionServer.open(configuration, logger: logger), records)
    }
}
