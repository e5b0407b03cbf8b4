import Logging
import NIOConcurrencyHelpers

/// What a server logged, for a test to read: each record at `level` and above.
final class RecordedLogs: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let records = NIOLockedValueBox<[Record]>([])

    var all: [Record] { records.withLockedValue { $0 } }

    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "recorded") { _ in Handler(logs: self, logLevel: level) }
        logger.logLevel = level
        return logger
    }

    private struct Handler: LogHandler {
        let logs: RecordedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            guard event.level >= logLevel else { return }
            let metadata = (event.metadata ?? [:]).mapValues { "\($0)" }
            logs.records.withLockedValue { $0.append(Record(level: event.level, message: "\(event.message)", metadata: metadata)) }
        }
    }
}
