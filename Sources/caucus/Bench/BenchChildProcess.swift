import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// This `caucus` binary again, as a child a bench measures (a server, the relay): started with
/// `arguments`, its stderr passed through, and its first line of output, which says where it
/// listens.
///
/// A child that cannot be used is never left behind: one whose first line does not say where
/// it listens (`address` finds nothing in it) is killed (SIGKILL: a child inherits its
/// starter's blocked signals, and a thread of a process that blocks SIGTERM would start one
/// that never sees it) and waited for before the error is thrown, and one that exits before
/// saying anything (its output closed) is waited for.
enum BenchChildProcess {
    static func start<Address>(
        _ arguments: [String], name: String, executable: String = CommandLine.arguments[0], address: (String) -> Address?
    ) throws -> (process: Process, address: Address) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        BenchLeftovers.installHandlers()
        try process.run()
        BenchLeftovers.adopt(child: process)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else {
                // Its output closed: it exited, or is made to (one that closed it and went on).
                abandon(process)
                throw BenchError("\(name) exited before listening")
            }
            line += byte
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let found = address(text) else {
            abandon(process)
            throw BenchError("\(name) did not say where it listens: \(text)")
        }
        return (process, found)
    }

    /// Kills a child the bench gives up on, or one it kills on purpose (a node dying), at once
    /// (SIGKILL: see the type's comment), and waits for it.
    static func abandon(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        BenchLeftovers.forget(child: process)
    }

    /// Stops a child the bench is done with (SIGTERM: a server closes its sessions), and waits
    /// for it.
    static func stop(_ process: Process) {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        BenchLeftovers.forget(child: process)
    }
}
