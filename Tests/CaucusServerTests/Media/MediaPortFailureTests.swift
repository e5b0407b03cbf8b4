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
                if let record = records.withLockedValue({ $0.first }) { return record }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(logged.level == .error)
        #expect(logged.message.contains("media port's socket closed"))
        #expect(logged.hint.contains("--media-gso off"))
        await server.closeMedia()
    }

    @Test func theServersOwnCloseLogsNothing() async throws {
        let (server, records) = try await Self.open(offload: .on)
        await server.closeMedia()
        try await Task.sleep(for: .milliseconds(100))
        #expect(records.withLockedValue { $0 }.isEmpty)
    }

    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let hint: String
    }

    private static func open(offload: MediaSegmentationOffload) async throws -> (SessionServer, NIOLockedValueBox<[Record]>) {
        let records = NIOLockedValueBox<[Record]>([])
        var logger = Logger(label: "media-port-failure") { _ in Recorder(records: records) }
        logger.logLevel = .error
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: NSTemporaryDirectory() + "caucus-\(UUID().uuidString)")
        configuration.mediaSegmentationOffload = offload
        return (try await SessionServer.open(configuration, logger: logger), records)
    }

    /// Keeps what is logged at error and above.
    private struct Recorder: LogHandler {
        let records: NIOLockedValueBox<[Record]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .error

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            guard event.level >= .error else { return }
            let hint = event.metadata?["hint"].map { "\($0)" } ?? ""
            records.withLockedValue { $0.append(Record(level: event.level, message: "\(event.message)", hint: hint)) }
        }
    }
}
