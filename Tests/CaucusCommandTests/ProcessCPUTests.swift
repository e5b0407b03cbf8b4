import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import caucus

/// A process's CPU time read from /proc, split into its own code (user) and the kernel's work
/// for it (system), as `caucus bench media` prints it per forwarded packet: real processes,
/// one that computes and one that does nothing but system calls, each read while it runs.
@Suite struct ProcessCPUTests {
    @Test func aProcessThatComputesSpendsItsTimeInUserSpace() throws {
        // Arithmetic in the shell, no system call in the loop.
        let times = try timesOnceBusy("i=0; while true; do i=$((i+1)); done")
        #expect(times.user > times.system, "\(times)")
    }

    @Test func aProcessThatOnlyCallsTheKernelSpendsItsTimeThere() throws {
        // One byte per read(2) and write(2): the work is the system calls.
        let times = try timesOnceBusy("exec dd if=/dev/zero of=/dev/null bs=1")
        #expect(times.system > times.user, "\(times)")
    }

    @Test func aProcessThatIsGoneHasNoTimes() throws {
        let process = try start("exit 0")
        process.waitUntilExit()
        #expect(ProcessCPU.times(of: process.processIdentifier) == nil)
    }

    /// Starts `script` under `/bin/sh` and reads its times once it has used 0.3 s of CPU.
    private func timesOnceBusy(_ script: String) throws -> ProcessCPU.Times {
        let process = try start(script)
        defer {
            // SIGKILL: the test's thread may block SIGTERM, and its child inherits the mask.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        while true {
            let times = try #require(ProcessCPU.times(of: process.processIdentifier))
            if times.total >= 0.3 { return times }
            usleep(20_000)
        }
    }

    private func start(_ script: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
