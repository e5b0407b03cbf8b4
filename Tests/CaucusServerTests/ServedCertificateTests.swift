import CaucusTestSupport
import Foundation
import Logging
import Testing
@testable import CaucusServer

/// The certificate `caucus serve --tls-cert` serves, at the clock's chosen instants: when a
/// reload serves new files, when it keeps the old ones and says so (once for a check, each time
/// for SIGHUP), and the daily warning of a certificate about to expire. The test CA of
/// Tests/PythonSupport/test_ca.py makes the files.
@Suite(.serialized) struct ServedCertificateTests {
    static let day: TimeInterval = 24 * 3600

    /// A CA's folder: server.pem/.key (90 days), soon.pem/.key (5 days), elsewhere.pem/.key.
    private static func certificates() async throws -> String {
        let folder = temporaryFolder(prefix: "caucus-tls-")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PythonSupport/test_ca.py").path
        let maker = try LineProcess(["python3", script, folder])
        while await maker.nextLine() != nil {}
        guard FileManager.default.fileExists(atPath: folder + "/soon.key") else { throw TestFailure("test_ca.py made nothing in \(folder)") }
        return folder
    }

    /// The files the server is given, which the tests rewrite as a renewal would.
    private static func serving(_ name: String, in folder: String) throws -> TLSFiles {
        let files = TLSFiles(certificatePath: folder + "/cert.pem", keyPath: folder + "/cert.key")
        try copy(name, in: folder, to: files)
        return files
    }

    private static func copy(_ name: String, in folder: String, to files: TLSFiles) throws {
        try Data(contentsOf: URL(fileURLWithPath: folder + "/\(name).pem")).write(to: URL(fileURLWithPath: files.certificatePath))
        try Data(contentsOf: URL(fileURLWithPath: folder + "/\(name).key")).write(to: URL(fileURLWithPath: files.keyPath))
    }

    @Test func aCertificateAboutToExpireIsWarnedAboutOnceADay() async throws {
        let folder = try await Self.certificates()
        let files = try Self.serving("soon", in: folder)
        let logs = RecordedLogs()
        let now = Date()
        let served = ServedCertificate(try ServingCertificate.load(files, now: now), files: files, logger: logs.logger(level: .warning))
        served.warnIfExpiring(now: now)
        served.warnIfExpiring(now: now + 60)
        served.warnIfExpiring(now: now + Self.day - 60)
        #expect(logs.all.count == 1, "\(logs.all.map(\.message))")
        #expect(logs.all.first?.message.contains("expires on") == true)
        #expect(logs.all.first?.message.contains("in 4 day(s)") == true || logs.all.first?.message.contains("in 5 day(s)") == true)
        served.warnIfExpiring(now: now + Self.day)
        #expect(logs.all.count == 2, "a day later, again")
        // A renewal serves the new certificate, which warns no more.
        try Self.copy("server", in: folder, to: files)
        #expect(served.reload(.check, now: now + Self.day + 5) == .reloaded)
        served.warnIfExpiring(now: now + 3 * Self.day)
        #expect(logs.all.filter { $0.message.contains("expires on") }.count == 2)
    }

    @Test func aRefusedReloadKeepsTheCertificateAndIsReportedOncePerChangeButOnEverySignal() async throws {
        let folder = try await Self.certificates()
        let files = try Self.serving("server", in: folder)
        let logs = RecordedLogs()
        let served = ServedCertificate(try ServingCertificate.load(files, now: Date()), files: files, logger: logs.logger(level: .notice))
        let first = served.current.serial
        #expect(served.reload(.check, now: Date()) == .unchanged)
        #expect(logs.all.isEmpty, "an unchanged file is not news")

        // Half a renewal: the new certificate, the old key.
        try Data(contentsOf: URL(fileURLWithPath: folder + "/elsewhere.pem")).write(to: URL(fileURLWithPath: files.certificatePath))
        guard case .refused(let error) = served.reload(.check, now: Date()) else {
            Issue.record("a mismatched pair must be refused")
            return
        }
        #expect(error.file == files.keyPath && error.reason.contains("does not match"))
        #expect(served.reload(.check, now: Date()) == .unchanged, "the same refused files are not tried again")
        #expect(logs.all.filter { $0.level == .error }.count == 1)
        #expect(served.current.serial == first)
        guard case .refused = served.reload(.signal, now: Date()) else {
            Issue.record("SIGHUP tries again")
            return
        }
        #expect(logs.all.filter { $0.level == .error }.count == 2, "SIGHUP always answers")

        // The key arrives: the pair is served.
        try Data(contentsOf: URL(fileURLWithPath: folder + "/elsewhere.key")).write(to: URL(fileURLWithPath: files.keyPath))
        #expect(served.reload(.check, now: Date()) == .reloaded)
        #expect(served.current.serial != first)
        #expect(logs.all.last?.level == .notice && logs.all.last?.message.contains("reloaded (file change)") == true)

        // A file gone: refused, reported once, still serving.
        try FileManager.default.removeItem(atPath: files.keyPath)
        guard case .refused(let missing) = served.reload(.check, now: Date()) else {
            Issue.record("a missing key must be refused")
            return
        }
        #expect(missing.reason.contains("No such file"))
        _ = served.reload(.check, now: Date())
        #expect(logs.all.filter { $0.level == .error }.count == 3)
        #expect(served.reload(.signal, now: Date()) != .reloaded)
        #expect(logs.all.filter { $0.level == .error }.count == 4)
    }

    @Test func anExpiredRenewalIsRefused() async throws {
        let folder = try await Self.certificates()
        let files = try Self.serving("server", in: folder)
        let logs = RecordedLogs()
        let served = ServedCertificate(try ServingCertificate.load(files, now: Date()), files: files, logger: logs.logger(level: .warning))
        // Renewed, by mistake, with a certificate that is expired by the time it is read.
        try Self.copy("soon", in: folder, to: files)
        guard case .refused(let error) = served.reload(.check, now: Date() + 6 * Self.day) else {
            Issue.record("an expired certificate must not be reloaded")
            return
        }
        #expect(error.reason.contains("expired on"))
        // And one served until it expires is said to have expired, not to expire in -1 days.
        let soon = ServedCertificate(try ServingCertificate.load(files, now: Date()), files: files, logger: logs.logger(level: .warning))
        soon.warnIfExpiring(now: Date() + 6 * Self.day)
        #expect(logs.all.last?.message.contains("has expired") == true, "\(logs.all.map(\.message))")
    }
}
