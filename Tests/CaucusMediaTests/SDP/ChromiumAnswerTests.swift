import CaucusProcessTestSupport
import CaucusMedia
import Foundation
import Testing

/// Headless Chromium applies an answer built here to its own offer.
@Suite struct ChromiumAnswerTests {
    @Test func chromiumAcceptsTheAnswer() async throws {
        let offer = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
        let answer = try SDPAnswer(answering: offer, options: SDPAnswerTests.options)
        let answerJSON = String(decoding: try JSONSerialization.data(withJSONObject: [answer.text], options: []), as: UTF8.self)
        let page = try OfferFixtures.text("chromium-accepts-answer.html")
            .replacingOccurrences(of: "ANSWER_JSON", with: String(answerJSON.dropFirst().dropLast()))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-answer-\(UUID().uuidString).html")
        try page.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        var verdict: [String: Any] = [:]
        // --dump-dom now and then races the page's promise (the page still says "pending": no
        // verdict, so another try); on a loaded machine four tries in a row lost the race once.
        for _ in 0..<12 where verdict.isEmpty {
            let dom = try await Self.dumpDOM(of: file)
            guard let start = dom.range(of: "<pre id=\"o\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
            else { continue }
            let text = String(dom[start.upperBound..<end.lowerBound])
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] { verdict = object }
        }
        #expect(verdict["accepted"] as? Bool == true, "\(verdict)")
        let media = try #require(verdict["media"] as? [[String: Any]])
        #expect(media.map { $0["direction"] as? String } == ["sendrecv", "sendrecv"])
        // RED is answered first for audio (so Chromium sends Opus wrapped in RED), Opus beside it.
        #expect(media.map { ($0["codecs"] as? [String])?.first } == ["audio/red", "video/VP8"])
        #expect((media[0]["codecs"] as? [String])?.contains("audio/opus") == true)
    }

    static func dumpDOM(of file: URL) async throws -> String {
        try await offThePool { try dumpDOMBlocking(of: file) }
    }

    private static func dumpDOMBlocking(of file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000", "--dump-dom", file.absoluteString]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
