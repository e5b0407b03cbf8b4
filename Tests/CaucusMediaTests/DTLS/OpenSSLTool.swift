import CaucusProcessTestSupport
import CaucusMedia
import Foundation

/// The `openssl` command line (OpenSSL 3, Debian's `openssl` package) as the DTLS peer
/// nobody here wrote: a client certificate for it, and its output parsed.
enum OpenSSLTool {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A fresh directory holding an ECDSA P-256 certificate (`cert.pem`) and key (`key.pem`).
    static func makeCertificate(commonName: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-dtls-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", directory.appendingPathComponent("key.pem").path,
            "-out", directory.appendingPathComponent("cert.pem").path,
            "-subj", "/CN=\(commonName)", "-days", "2",
        ])
        return directory
    }

    /// The certificate's SHA-256 fingerprint as OpenSSL computes it.
    static func fingerprint(ofCertificateIn directory: URL) throws -> DTLSFingerprint {
        let output = try run(["x509", "-noout", "-fingerprint", "-sha256", "-in", directory.appendingPathComponent("cert.pem").path])
        // "sha256 Fingerprint=AB:CD:…" (OpenSSL 3) or "SHA256 Fingerprint=…" (1.1).
        guard let digits = output.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines),
            let fingerprint = DTLSFingerprint(sdpValue: "sha-256 " + digits)
        else { throw Failure(description: "no fingerprint in: \(output)") }
        return fingerprint
    }

    /// The exporter output s_client or s_server printed (`Keying material: HEX`).
    static func keyingMaterial(in output: String) -> [UInt8]? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Keying material:") }),
            let digits = line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces), !digits.isEmpty
        else { return nil }
        return hex(digits)
    }

    /// Runs `openssl` to completion and returns its standard output.
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.first ?? "") exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts a long-running `openssl` (s_client, s_server) whose output goes to a file the
    /// test polls, with a standard input the test closes to end it. `stdbuf -oL` makes its
    /// stdio flush each line, so the test sees what it printed while it still runs.
    static func start(_ arguments: [String]) throws -> (process: Process, input: Pipe, output: URL) {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-openssl-\(UInt64.random(in: 0...UInt64.max)).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", "-eL", "/usr/bin/openssl"] + arguments
        let input = Pipe()
        process.standardInput = input
        let handle = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return (process, input, outputURL)
    }

    /// Ends a process from `start`: closes its standard input (s_client then sends
    /// close_notify and exits) and waits for it to exit by itself, up to a safety stop after
    /// which it is killed. SIGKILL, because the test runner's threads block most signals and
    /// children inherit that mask, so `terminate()`'s SIGTERM would never arrive.
    ///
    /// Waited for on a thread of its own: s_client may take the whole safety stop to exit
    /// after a refused handshake, and a cooperative thread blocked that long stalls every
    /// other test of the run.
    static func finish(_ process: Process, input: Pipe) async {
        _ = try? await offThePool { finishBlocking(process, input: input) }
    }

    /// Cleanup when a test ends early: kills a process still running, without waiting.
    static func abandon(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private static func finishBlocking(_ process: Process, input: Pipe) {
        try? input.fileHandleForWriting.close()
        let clock = ContinuousClock()
        let stop = clock.now + .seconds(30)
        while process.isRunning, clock.now < stop { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    static func contents(of url: URL) -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }
}
