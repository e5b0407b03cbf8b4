import Foundation

/// `caucus bench media-relay` as a child process, given the fan-out as a JSON file.
final class MediaRelayProcess: Sendable {
    let port: Int
    private let process: Process

    init(fanout: [Int: [Int]]) throws {
        let file = NSTemporaryDirectory() + "caucus-relay-\(UUID().uuidString).json"
        let table = MediaRelayCommand.Table(fanout: Dictionary(uniqueKeysWithValues: fanout.map { ("\($0.key)", $0.value) }))
        try JSONEncoder().encode(table).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments = ["bench", "media-relay", "--table", file]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw BenchError("the relay exited before listening") }
            line += byte
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).dropFirst("port ".count).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("the relay said: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
        self.process = process
    }

    var cpuSeconds: Double? { ProcessCPU.seconds(of: process.processIdentifier) }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
