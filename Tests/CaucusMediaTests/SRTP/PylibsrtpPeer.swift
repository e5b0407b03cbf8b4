import CaucusProcessTestSupport
import CaucusMedia
import Foundation

/// libsrtp, through PyPI's `pylibsrtp`, as the SRTP implementation nobody here wrote: a
/// python process keeps one outbound and one inbound session with the same master key and
/// answers one line per packet. CI installs it with `pip install pylibsrtp`.
enum PylibsrtpPeer {
    enum Operation: String {
        case protectRTP = "protect_rtp", protectRTCP = "protect_rtcp"
        case unprotectRTP = "unprotect_rtp", unprotectRTCP = "unprotect_rtcp"
    }

    /// Either the transformed packet or libsrtp's refusal.
    enum Answer: Equatable {
        case packet([UInt8])
        case refused(String)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let script = """
        import sys
        from pylibsrtp import Policy, Session
        profiles = {"gcm": Policy.SRTP_PROFILE_AEAD_AES_128_GCM, "cm": Policy.SRTP_PROFILE_AES128_CM_SHA1_80}
        lines = sys.stdin.read().split("\\n")
        profile, key = lines[0].split()
        def session(kind):
            return Session(policy=Policy(key=bytes.fromhex(key), ssrc_type=kind, srtp_profile=profiles[profile]))
        outbound, inbound = session(Policy.SSRC_ANY_OUTBOUND), session(Policy.SSRC_ANY_INBOUND)
        operations = {"protect_rtp": outbound.protect, "protect_rtcp": outbound.protect_rtcp,
                      "unprotect_rtp": inbound.unprotect, "unprotect_rtcp": inbound.unprotect_rtcp}
        for line in lines[1:]:
            if not line:
                continue
            operation, data = line.split()
            try:
                print("ok", operations[operation](bytes.fromhex(data)).hex())
            except Exception as error:
                print("refused", str(error).replace(" ", "_"))
        """

    /// Runs `operations` in order through one libsrtp session pair keyed with `material`.
    static func run(
        _ profile: SRTPProfile,
        _ material: SRTPKeyingMaterial,
        _ operations: [(Operation, [UInt8])]
    ) async throws -> [Answer] {
        let operations = operations.map { Step(operation: $0.0, packet: $0.1) }
        return try await offThePool { try runBlocking(profile, material, operations.map { ($0.operation, $0.packet) }) }
    }

    private struct Step: Sendable {
        let operation: Operation
        let packet: [UInt8]
    }

    private static func runBlocking(
        _ profile: SRTPProfile,
        _ material: SRTPKeyingMaterial,
        _ operations: [(Operation, [UInt8])]
    ) throws -> [Answer] {
        let name = profile == .aeadAES128GCM ? "gcm" : "cm"
        var input = "\(name) \(hexString(material.masterKey + material.masterSalt))\n"
        for (operation, packet) in operations { input += "\(operation.rawValue) \(hexString(packet))\n" }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "python3 with pylibsrtp failed (pip install pylibsrtp): "
                    + String(decoding: errors, as: UTF8.self))
        }
        let answers = String(decoding: output, as: UTF8.self).split(separator: "\n").map { line -> Answer in
            let fields = line.split(separator: " ")
            return fields.first == "ok" ? .packet(hex(String(fields.count > 1 ? fields[1] : ""))) : .refused(String(fields.last ?? ""))
        }
        guard answers.count == operations.count else {
            throw Failure(description: "expected \(operations.count) answers, got \(answers.count)")
        }
        return answers
    }
}
