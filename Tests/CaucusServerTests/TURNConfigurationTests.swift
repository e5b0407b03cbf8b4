import CaucusAuth
import CaucusCore
import CaucusProtocol
import CaucusStore
import Foundation
import Testing

@testable import CaucusServer

/// `--turn-url`, `--turn-secret-file` and `--turn-credential-hours` as the server checks them at
/// start: every mistake is refused with the flag named, and what is accepted mints credentials
/// coturn checks (`<expiry>:<session>.<user>`, base64 HMAC-SHA1 under the file's secret).
@Suite struct TURNConfigurationTests {
    @Test func turnAndTurnsURLsAsRFC7065WritesThem() throws {
        let cases: [(String, secure: Bool, host: String, port: Int?, transport: String?)] = [
            ("turns:turn.example.org:443?transport=tcp", true, "turn.example.org", 443, "tcp"),
            ("turn:turn.example.org:3478?transport=udp", false, "turn.example.org", 3478, "udp"),
            ("turn:203.0.113.10", false, "203.0.113.10", nil, nil),
            ("TURNS:turn.example.org", true, "turn.example.org", nil, nil),
            ("turn:[2001:db8::1]:3478?transport=TCP", false, "2001:db8::1", 3478, "tcp"),
        ]
        for (text, secure, host, port, transport) in cases {
            let url = try TURNURL(text)
            #expect(url.text == text && url.secure == secure && url.host == host && url.port == port && url.transport == transport, "\(text)")
        }
    }

    @Test func anythingElseIsRefusedNamingTheFlagAndTheURL() {
        let refused: [(String, String)] = [
            ("stun:turn.example.org:3478", "not a turn: or turns: URL"),
            ("https://turn.example.org", "not a turn: or turns: URL"),
            ("turn.example.org:3478", "not a turn: or turns: URL"),
            ("turn:", "the host must be"),
            ("turn:user@turn.example.org", "the host must be"),
            ("turn:turn.example.org/path", "the host must be"),
            ("turn:2001:db8::1", "the port is"),
            ("turn:[2001:db8::1", "closing ]"),
            ("turn:[2001:db8::1]3478", "only :port"),
            ("turn:turn.example.org:0", "the port is"),
            ("turn:turn.example.org:65536", "the port is"),
            ("turn:turn.example.org:34x", "the port is"),
            ("turn:turn.example.org?transport=sctp", "?transport=udp or ?transport=tcp"),
            ("turn:turn.example.org?foo=bar", "?transport=udp or ?transport=tcp"),
            ("turns:turn.example.org:443?transport=udp", "TLS, on TCP"),
        ]
        for (text, why) in refused {
            do {
                _ = try TURNURL(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.hasPrefix("--turn-url \(text): "), "\(error)")
                #expect(error.description.contains(why), "\(text): \(error)")
            }
        }
    }

    @Test func theSecretIsTheFilesOneLineAndCredentialsAreMintedFromIt() throws {
        let folder = try Folder()
        let file = try folder.write("secret", "north-wind\n")
        let turn = try TURNConfiguration(urls: ["turns:turn.example.org:443?transport=tcp", "turn:turn.example.org:3478"], secretFile: file)
        #expect(turn.credentialHours == 12)
        let servers = turn.iceServers(session: StoredSessionID(rawValue: 3), user: UserID(1), at: Instant(milliseconds: 1_789_956_800_500))
        // 1789956800 + 12 h = 1790000000; `printf '1790000000:3.1' | openssl dgst -sha1 -hmac north-wind -binary | base64`.
        #expect(servers == [ICEServer(
            urls: ["turns:turn.example.org:443?transport=tcp", "turn:turn.example.org:3478"], username: "1790000000:3.1",
            credential: "2LpdpU/yMIXL7qlxj39IAh0Yuvs=")])
        let day = try TURNConfiguration(urls: ["turn:t.test"], secretFile: try folder.write("spaced", "  \r\nnorth-wind \r\n"), credentialHours: 24)
        #expect(day.iceServers(session: StoredSessionID(rawValue: 3), user: UserID(1), at: Instant(seconds: 1_789_913_600))
            == [ICEServer(urls: ["turn:t.test"], username: "1790000000:3.1", credential: "2LpdpU/yMIXL7qlxj39IAh0Yuvs=")])
    }

    @Test func aSecretFileThatCannotServeIsRefusedNamingTheFlag() throws {
        let folder = try Folder()
        let notText = folder.path + "/latin1"
        try Data([0x6e, 0xff, 0x0a]).write(to: URL(fileURLWithPath: notText))
        let cases: [(String, String)] = [
            (folder.path + "/missing", "cannot be read: No such file or directory"),
            (folder.path, "cannot be read: not a regular file"),
            (try folder.write("empty", ""), "the file is empty"),
            (try folder.write("blank", " \n\n"), "the file is empty"),
            (try folder.write("two", "one\ntwo\n"), "more than one line"),
            (notText, "not UTF-8 text"),
            (try folder.write("large", String(repeating: "x", count: 5000)), "is 5000 bytes: too large"),
        ]
        for (path, why) in cases {
            do {
                _ = try TURNConfiguration(urls: ["turn:t.test"], secretFile: path)
                Issue.record("\(path) was accepted")
            } catch {
                #expect("\(error)".hasPrefix("--turn-secret-file \(path): "), "\(error)")
                #expect("\(error)".contains(why), "\(error)")
            }
        }
    }

    @Test func urlsAndTheLifetimeAreCheckedBeforeTheFileIsRead() throws {
        let missing = "/nonexistent/secret"
        for (urls, hours, why) in [([String](), 12, "--turn-secret-file needs --turn-url"), (["stun:t.test"], 12, "--turn-url stun:t.test"),
                                   (["turn:t.test"], 0, "--turn-credential-hours is 1 to 168, not 0"),
                                   (["turn:t.test"], 169, "--turn-credential-hours is 1 to 168, not 169")] {
            do {
                _ = try TURNConfiguration(urls: urls, secretFile: missing, credentialHours: hours)
                Issue.record("\(urls) \(hours) accepted")
            } catch {
                #expect("\(error)".hasPrefix(why), "\(error)")
            }
        }
    }
}

/// A temporary folder, removed when the test's value goes.
private final class Folder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "caucus-turn-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
