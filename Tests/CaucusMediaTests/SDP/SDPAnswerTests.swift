import CaucusProcessTestSupport
import CaucusMedia
import Foundation
import Testing

@Suite struct SDPAnswerTests {
    static let options = {
        var options = SDPAnswerOptions(
            iceUfrag: "srvr", icePwd: "0123456789abcdefghijkl",
            fingerprint: SDPFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0 * 7) }),
            candidate: TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40000), sessionID: 42)
        options.sendingSSRCs = ["0": 1111, "1": 2222]
        return options
    }()

    @Test func answersChromium() throws {
        let offer = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
        let answer = try SDPAnswer(answering: offer, options: Self.options)
        #expect(answer.media.map(\.codec?.name) == ["opus", "VP8"])
        #expect(answer.media.map(\.direction) == [.sendrecv, .sendrecv])
        // Chromium sends on both sections: transport-wide sequence numbers and transport-cc too.
        #expect(answer.media[0].headerExtensionIDs == [RTPExtensionURI.audioLevel: 1, RTPExtensionURI.mid: 4, RTPExtensionURI.transportWideCC: 3])
        #expect(answer.media[1].codec?.feedback == ["transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(answer.remoteFingerprints.first?.algorithm == "sha-256")
        #expect(answer.remoteICEUfrag == offer.media[0].iceUfrag)
        // What we send back parses as a description of its own, with our attributes.
        let parsed = try SessionDescription(parsing: answer.text)
        #expect(parsed.iceLite)
        #expect(parsed.bundleGroup == ["0", "1"])
        #expect(parsed.media.allSatisfy { $0.setup == .passive && $0.rtcpMux && $0.iceUfrag == "srvr" && $0.port == 40000 })
        #expect(parsed.media[0].candidates == ["1 1 udp 2130706431 127.0.0.1 40000 typ host"])
        #expect(parsed.media[0].ssrcs[1111] == "caucus")
        #expect(parsed.media[0].codecs.first { $0.name == "opus" }?.formatParameters == "minptime=10;useinbandfec=1")
        #expect(Self.options.fingerprint.value.hasPrefix("00:07:0E:15:"))
    }

    /// Chromium offers `red/48000/2` as `111/111`: answered first (so Chromium sends it), beside Opus.
    @Test func redundantAudioIsAnsweredFirstWhenItWrapsOpus() throws {
        let offer = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
        let answer = try SDPAnswer(answering: offer, options: Self.options)
        let red = try #require(answer.media[0].redundancy)
        #expect(red.name == "red" && red.payloadType == 63 && red.formatParameters == "111/111")
        #expect(answer.media[1].redundancy == nil, "video's red/90000 is another thing: never answered")
        #expect(answer.text.contains("m=audio 40000 UDP/TLS/RTP/SAVPF 63 111\r\n"))
        #expect(answer.text.contains("a=rtpmap:63 red/48000/2\r\na=fmtp:63 111/111\r\n"))
        let parsed = try SessionDescription(parsing: answer.text)
        #expect(parsed.media[0].formats == ["63", "111"])

        var off = Self.options
        off.audioRedundancy = false
        let plain = try SDPAnswer(answering: offer, options: off)
        #expect(plain.media[0].redundancy == nil)
        #expect(plain.text.contains("m=audio 40000 UDP/TLS/RTP/SAVPF 111\r\n"))
    }

    /// RTX is answered for the chosen video codec (its `apt`), and a sending section announces
    /// its RTX SSRC in an FID group.
    @Test func retransmissionsAreAnsweredForTheChosenVideoCodec() throws {
        var options = Self.options
        options.retransmissionSSRCs = ["0": 3333, "1": 4444]
        let offer = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
        let answer = try SDPAnswer(answering: offer, options: options)
        let rtx = try #require(answer.media[1].retransmission)
        #expect(rtx.name == "rtx" && rtx.payloadType == 97 && rtx.parameters["apt"] == "96")
        #expect(answer.media[0].retransmission == nil, "audio is not retransmitted")
        #expect(answer.text.contains("m=video 40000 UDP/TLS/RTP/SAVPF 96 97\r\n"))
        #expect(answer.text.contains("a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"))
        #expect(answer.text.contains("a=ssrc-group:FID 2222 4444\r\na=ssrc:2222 cname:caucus\r\na=ssrc:4444 cname:caucus\r\n"))
        #expect(!answer.text.contains("3333"), "no RTX group where no RTX was answered")

        var off = options
        off.retransmissions = false
        let plain = try SDPAnswer(answering: offer, options: off)
        #expect(plain.media[1].retransmission == nil && !plain.text.contains("ssrc-group") && !plain.text.contains("rtx/"))

        var otherApt = offer
        for index in otherApt.media[1].codecs.indices where otherApt.media[1].codecs[index].name == "rtx" {
            otherApt.media[1].codecs[index].formatParameters = "apt=102"
        }
        #expect(try SDPAnswer(answering: otherApt, options: options).media[1].retransmission == nil, "RTX of another codec")
    }

    /// Chromium's simulcast offer (three RIDs, `a=simulcast:send h;m;l`, no SSRCs) is answered with
    /// every layer, and the RID extensions kept.
    @Test func simulcastIsAnsweredWithEveryLayer() throws {
        let offer = try SessionDescription(parsing: try OfferFixtures.chromiumSimulcastOffer)
        #expect(offer.media[1].sendRIDs == ["h", "m", "l"] && offer.media[1].simulcastSend == ["h", "m", "l"])
        let answer = try SDPAnswer(answering: offer, options: Self.options)
        #expect(answer.media[1].simulcastLayers == ["h", "m", "l"])
        #expect(answer.media[0].simulcastLayers.isEmpty)
        #expect(answer.media[1].headerExtensionIDs[RTPExtensionURI.streamID] == 10)
        #expect(answer.media[1].headerExtensionIDs[RTPExtensionURI.repairedStreamID] == 11)
        #expect(answer.text.contains("a=rid:h recv\r\na=rid:m recv\r\na=rid:l recv\r\na=simulcast:recv h;m;l\r\n"))

        var off = Self.options
        off.simulcast = false
        #expect(try SDPAnswer(answering: offer, options: off).media[1].simulcastLayers.isEmpty)
        var withoutExtension = offer
        withoutExtension.media[1].extmaps.removeAll { $0.uri == RTPExtensionURI.streamID }
        #expect(try SDPAnswer(answering: withoutExtension, options: Self.options).media[1].simulcastLayers.isEmpty,
                "no RID extension: packets could not name their layer")
        var paused = try SessionDescription(parsing: try OfferFixtures.chromiumSimulcastOffer.replacingOccurrences(of: "a=simulcast:send h;m;l", with: "a=simulcast:send h,x;~m;l"))
        #expect(paused.media[1].simulcastSend == ["h", "m", "l"])
        paused.media[1].sendRIDs = ["h", "l"]
        #expect(try SDPAnswer(answering: paused, options: Self.options).media[1].simulcastLayers == ["h", "l"], "only declared RIDs")
    }

    /// RED whose blocks name anything but the chosen Opus, or that the m-line does not list, is not answered.
    @Test func redundancyOfAnotherCodecIsNotAnswered() throws {
        for parameters in ["111/0", "0/0", "", "111/x"] {
            var offer = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
            let index = try #require(offer.media[0].codecs.firstIndex { $0.name == "red" })
            offer.media[0].codecs[index].formatParameters = parameters
            #expect(try SDPAnswer(answering: offer, options: Self.options).media[0].redundancy == nil, "\(parameters)")
        }
        var unlisted = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
        unlisted.media[0].formats.removeAll { $0 == "63" }
        #expect(try SDPAnswer(answering: unlisted, options: Self.options).media[0].redundancy == nil)
        let aiortc = try SDPAnswer(answering: try SessionDescription(parsing: try OfferFixtures.aiortcOffer), options: Self.options)
        #expect(aiortc.media.allSatisfy { $0.redundancy == nil })
    }

    /// Transport-cc (extension and feedback) on sections the offerer receives too: the
    /// subscriber then reports what arrived of the server's packets (its downlink estimate).
    /// Without downlink estimation, only where the offerer sends.
    @Test func transportCCIsAnsweredWhereTheOffererReceivesForTheDownlinkEstimate() throws {
        var offer = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
        offer.media[1].direction = .recvonly
        let answer = try SDPAnswer(answering: offer, options: Self.options)
        #expect(answer.media[0].headerExtensionIDs[RTPExtensionURI.transportWideCC] == 3)
        #expect(answer.media[1].headerExtensionIDs[RTPExtensionURI.transportWideCC] == 3)
        #expect(answer.media[1].codec?.feedback.contains("transport-cc") == true)
        var withoutEstimate = Self.options
        withoutEstimate.downlinkEstimation = false
        let senderOnly = try SDPAnswer(answering: offer, options: withoutEstimate)
        #expect(senderOnly.media[0].headerExtensionIDs[RTPExtensionURI.transportWideCC] == 3)
        #expect(senderOnly.media[1].headerExtensionIDs[RTPExtensionURI.transportWideCC] == nil)
        #expect(senderOnly.media[1].codec?.feedback.contains("transport-cc") == false)
        let video = try #require(senderOnly.text.range(of: "m=video"))
        #expect(!senderOnly.text[video.lowerBound...].contains("transport-wide-cc") && !senderOnly.text[video.lowerBound...].contains("transport-cc"))
    }

    @Test func directionsAreMirroredAndH264ChosenWithoutVP8() throws {
        var offer = try SessionDescription(parsing: try OfferFixtures.aiortcOffer)
        offer.media[0].direction = .sendonly
        offer.media[1].direction = .recvonly
        offer.media[1].codecs.removeAll { $0.name == "VP8" }
        let answer = try SDPAnswer(answering: offer, options: Self.options)
        #expect(answer.media.map(\.direction) == [.recvonly, .sendonly])
        let h264 = try #require(answer.media[1].codec)
        #expect(h264.name == "H264")
        #expect(h264.parameters["packetization-mode"] == "1")
        // Receive-only: no SSRC of ours in the audio section.
        #expect(!answer.text.contains("a=ssrc:1111"))
        #expect(answer.text.contains("a=ssrc:2222"))
    }

    @Test func unusableSectionsAreRejectedAndOffersWithoutBasicsRefused() throws {
        var offer = try SessionDescription(parsing: try OfferFixtures.aiortcOffer)
        offer.media[1].codecs.removeAll { $0.name == "VP8" || $0.name == "H264" }
        let answer = try SDPAnswer(answering: offer, options: Self.options)
        #expect(answer.media[1].codec == nil)
        #expect(answer.text.contains("m=video 0 UDP/TLS/RTP/SAVPF"))
        #expect(answer.text.contains("a=group:BUNDLE 0\r\n"))

        var noBundle = offer
        noBundle.bundleGroup = []
        #expect(throws: SDPNegotiationError.bundleRequired) { try SDPAnswer(answering: noBundle, options: Self.options) }
        var noMux = offer
        noMux.media[0].rtcpMux = false
        #expect(throws: SDPNegotiationError.rtcpMuxRequired(mid: "0")) { try SDPAnswer(answering: noMux, options: Self.options) }
        var noCredentials = offer
        noCredentials.media[0].icePwd = nil
        #expect(throws: SDPNegotiationError.missingICECredentials(mid: "0")) { try SDPAnswer(answering: noCredentials, options: Self.options) }
        var nothing = offer
        nothing.media[0].codecs = []
        #expect(throws: SDPNegotiationError.noAcceptableMedia) { try SDPAnswer(answering: nothing, options: Self.options) }
    }

    /// A live aiortc peer makes an offer, and applies the answer built here.
    @Test func aiortcAcceptsTheAnswer() async throws {
        let options = Self.options
        // The conversation with the Python peer blocks on its pipe: off the cooperative pool.
        let verdict = try await offThePool { () throws -> String in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", OfferFixtures.directory.appendingPathComponent("aiortc_accepts_answer.py").path]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            var offerText = ""
            var reader = PipeLineReader(handle: output.fileHandleForReading)
            while let line = reader.next(), line != "--end--" { offerText += line + "\n" }
            let offer = try SessionDescription(parsing: offerText)
            let answer = try SDPAnswer(answering: offer, options: options)
            input.fileHandleForWriting.write(Data((answer.text + "--end--\n").utf8))
            let verdict = reader.next() ?? ""
            process.waitUntilExit()
            return verdict
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(verdict.utf8)) as? [String: Any], "aiortc said: \(verdict)")
        #expect(json["accepted"] as? Bool == true, "\(json)")
        #expect(json["remoteIceLite"] as? Bool == true)
        let media = try #require(json["media"] as? [[String: Any]])
        #expect(media.map { $0["direction"] as? String } == ["sendrecv", "sendrecv"])
        #expect(media.map { ($0["codecs"] as? [String])?.first } == ["audio/opus", "video/VP8"])
    }
}

/// Lines from a pipe, read a byte at a time so nothing past the current line is consumed.
struct PipeLineReader {
    let handle: FileHandle
    var buffer: [UInt8] = []

    init(handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            let chunk = handle.availableData
            if chunk.isEmpty {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer += chunk
        }
    }
}
