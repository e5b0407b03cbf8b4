import Foundation

/// `caucus bench media-relay` as a child process, given the fan-out as a JSON file.
final class MediaRelayProcess: Sendable {
    let port: Int
    private let process: Process

    init(fanout: [Int: [Int]]) throws {
        let file = NSTemporaryDirectory() + "caucus-relay-\(UUID().uuidString).json"
        let table = MediaRelayCommand.Table(fanout: Dictionary(uniqueKeysWithValues: fanout.map { ("\($0.key)", $0.value) }))
        try JSONEncoder().encode(table).write(to: URL(fileURLWithPath: file))
        // Read before the relay listens; gone whether it started or not.
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (process, port) = try BenchChildProcess.start(["bench", "media-relay", "--table", file], name: "the relay") { line in
            line.hasPrefix("port ") ? Int(line.dropFirst("port ".count).trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        }
        self.port = port
        self.process = process
    }

    var cpuTimes: ProcessCPU.Times? { ProcessCPU.times(of: process.processIdentifier) }

    func stop() {
        BenchChildProcess.stop(process)
    }

    deinit { stop() }
}
