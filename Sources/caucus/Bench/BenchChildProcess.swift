import Foundation

/// This `caucus` binary again, as a child a bench measures (a server, the relay): started with
/// `arguments`, its stderr passed through, and its first line of output, which says where it
/// listens.
enum BenchChildProcess {
    static func start(_ arguments: [String], name: String) throws -> (process: Process, firstLine: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw BenchError("\(name) exited before listening") }
            line += byte
        }
        return (process, String(decoding: line, as: UTF8.self))
    }
}
