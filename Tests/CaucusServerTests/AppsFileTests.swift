import CaucusServer
import Foundation
import Testing

/// `caucus serve --config FILE`: a file no server could run with is refused with a sentence
/// naming the file and the field, never Swift's decoding words, and never started with.
@Suite struct AppsFileTests {
    static func load(_ json: String) throws(AppsFileError) -> [AppCredentialsSummary] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString).json").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try AppsFile.load(path).map { AppCredentialsSummary(key: $0.key, maxSessions: $0.maxSessions) }
    }

    struct AppCredentialsSummary: Equatable {
        let key: String
        let maxSessions: Int
    }

    @Test(arguments: [
        (#"{"apps":[{"key":"k","secret":"s","maxSessions":0}]}"#, "apps[0].maxSessions is 0: an app may have 1 or more live sessions at once"),
        (#"{"apps":[{"key":"k","secret":"s","maxSessions":-1}]}"#, "apps[0].maxSessions is -1: an app may have 1 or more live sessions at once"),
        (#"{"apps":[{"key":"k","secret":"s","maxSessions":"10"}]}"#, "apps[0].maxSessions must be a whole number"),
        (#"{"apps":[{"key":"k","secret":"s","maxSessions":1.5}]}"#, "apps[0].maxSessions must be a whole number"),
        (#"{"apps":[{"key":"k","secret":"s"},{"key":"j"}]}"#, "apps[1].secret is missing"),
        (#"{"apps":[{"key":"k","secret":"s","limits":{"maxSubsessions":"x"}}]}"#, "apps[0].limits.maxSubsessions must be a whole number"),
        ("not json", #"is not JSON of {"apps": [{"key", "secret", …}]}"#),
    ])
    func aFileNoServerCouldRunWithIsRefusedNamingTheField(json: String, reason: String) {
        #expect(throws: AppsFileError.self) { _ = try Self.load(json) }
        do {
            _ = try Self.load(json)
        } catch {
            #expect(error.reason == reason)
            #expect(error.description.hasSuffix(": \(reason)") && error.description.contains("apps-"), "names the file: \(error)")
        }
    }

    @Test func aGoodFileGivesItsApps() throws {
        #expect(try Self.load(#"{"apps":[{"key":"k","secret":"s","maxSessions":7},{"key":"j","secret":"t"}]}"#)
            == [AppCredentialsSummary(key: "k", maxSessions: 7), AppCredentialsSummary(key: "j", maxSessions: 1_000)])
    }

    @Test func aMissingFileIsRefused() {
        #expect(throws: AppsFileError.self) { _ = try AppsFile.load("/nonexistent/apps.json") }
    }
}
