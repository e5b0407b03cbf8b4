import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation
import Testing

/// `caucus bench media-clients` end to end, small: the real binary and its child server, four
/// SDK clients of which three publish the looped Opus tone and VP8 pattern. Its rates are not
/// checked (no timing in tests), only that it runs, that every client receives each other
/// publisher's audio and video, and that every frame received decodes.
@Suite(.serialized) struct MediaClientsBenchSmokeTests {
    @Test func fourClientsThreePublishingReceiveAndDecodeEachOther() async throws {
        let (status, output, error) = try await run(["--clients", "4", "--publishers", "3", "--seconds", "1", "--json"])
        #expect(status == 0, "\(error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String], "\(output)")
        // A publisher receives the two others; the listener all three.
        #expect(report["video streams received per client, min (expected)"] == "2 (2)")
        #expect(report["audio streams received per client, min (expected)"] == "2 (2)")
        #expect(report["frames that did not decode"] == "0")
        #expect(perSecond(report["RTP packets out of the server (the clients' received)"]) > 0)
        #expect(perSecond(report["RTP packets into the server (the clients' sent)"]) > 0)
    }

    @Test func moreWantedPublishersThanClientsIsRefused() async throws {
        let (status, _, error) = try await run(["--clients", "3", "--publishers", "4"])
        #expect(status != 0)
        #expect(error.contains("--publishers must be 1…3"))
    }

    private func run(_ arguments: [String]) async throws -> (Int32, String, String) {
        try await ServerProcess.runToEnd(["bench", "media-clients"] + arguments)
    }

    private func perSecond(_ figure: String?) -> Int { figure.flatMap { Int($0.split(separator: "/").first ?? "") } ?? 0 }
}
