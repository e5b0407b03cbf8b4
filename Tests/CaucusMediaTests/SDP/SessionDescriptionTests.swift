import CaucusMedia
import PropertyBased
import Testing

@Suite struct SessionDescriptionTests {
    @Test func readsAiortcsOffer() throws {
        let offer = try SessionDescription(parsing: try OfferFixtures.aiortcOffer)
        #expect(offer.bundleGroup == ["0", "1"])
        #expect(!offer.iceLite)
        #expect(offer.media.map(\.kind) == ["audio", "video"])
        let audio = offer.media[0]
        #expect(audio.mid == "0")
        #expect(audio.direction == .sendrecv)
        #expect(audio.rtcpMux)
        #expect(audio.setup == .actpass)
        #expect(audio.iceUfrag?.isEmpty == false)
        #expect(audio.fingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-512"])
        #expect(audio.codecs.first == SDPCodec(payloadType: 96, name: "opus", clockRate: 48000, channels: 2))
        #expect(audio.extmaps.contains { $0.uri == "urn:ietf:params:rtp-hdrext:ssrc-audio-level" && $0.id == 2 })
        #expect(audio.ssrcs.count == 1)
        #expect(audio.candidates.count == 2)
        let video = offer.media[1]
        #expect(video.codecs.map(\.name) == ["VP8", "rtx", "H264", "rtx", "H264", "rtx"])
        #expect(video.codecs[0].feedback == ["nack", "nack pli", "goog-remb"])
        #expect(video.codecs[2].parameters["packetization-mode"] == "1")
        #expect(video.ssrcGroups.first?.semantics == "FID")
        #expect(video.ssrcGroups.first?.ssrcs.count == 2)
    }

    @Test func readsChromiumsOffer() throws {
        let offer = try SessionDescription(parsing: try OfferFixtures.chromiumOffer)
        #expect(offer.bundleGroup == ["0", "1"])
        let audio = offer.media[0]
        let opus = try #require(audio.codecs.first)
        #expect(opus.name == "opus")
        #expect(opus.payloadType == 111)
        #expect(opus.parameters["useinbandfec"] == "1")
        #expect(opus.feedback == ["transport-cc"])
        #expect(audio.msid?.hasPrefix("- ") == true)
        let video = offer.media[1]
        #expect(video.codecs.first?.name == "VP8")
        #expect(video.codecs.first?.feedback.contains("ccm fir") == true)
        #expect(video.codecs.contains { $0.name == "H264" && $0.parameters["packetization-mode"] == "1" })
        #expect(video.extmaps.contains { $0.uri == "urn:ietf:params:rtp-hdrext:sdes:mid" })
    }

    @Test func simulcastAndRidAreSkipped() throws {
        let offer = try SessionDescription(parsing: try OfferFixtures.chromiumSimulcastOffer)
        #expect(offer.media.count == 2)
        #expect(offer.media[1].mid == "1")
        #expect(offer.media[1].codecs.first?.name == "VP8")
    }

    @Test func bareLineFeedsAndSessionLevelAttributesAreAccepted() throws {
        let text = """
            v=0
            o=- 1 1 IN IP4 0.0.0.0
            s=-
            t=0 0
            a=group:BUNDLE a
            a=ice-ufrag:uf
            a=ice-pwd:pwpwpwpwpwpwpwpwpwpwpw
            a=fingerprint:sha-256 ab:cd
            a=setup:active
            a=x-unknown-thing:with:colons
            m=audio 9 UDP/TLS/RTP/SAVPF 111
            a=mid:a
            a=recvonly
            a=rtcp-mux
            a=rtpmap:111 opus/48000/2
            a=rtcp-fb:* nack
            """
        let offer = try SessionDescription(parsing: text)
        let audio = offer.media[0]
        #expect(audio.iceUfrag == "uf")
        #expect(audio.fingerprints == [SDPFingerprint(algorithm: "SHA-256", value: "AB:CD")])
        #expect(audio.setup == .active)
        #expect(audio.direction == .recvonly)
        #expect(audio.codecs.first?.feedback == ["nack"])
    }

    @Test func malformedDescriptionsAreRefused() {
        #expect(throws: SDPParseError.missingVersion) { try SessionDescription(parsing: "") }
        #expect(throws: SDPParseError.missingVersion) { try SessionDescription(parsing: "o=- 1 1 IN IP4 0.0.0.0\r\n") }
        #expect(throws: SDPParseError.malformedLine(line: 2)) { try SessionDescription(parsing: "v=0\r\nnonsense\r\n") }
        #expect(throws: SDPParseError.malformedMediaLine(line: 2)) { try SessionDescription(parsing: "v=0\r\nm=audio 9\r\n") }
        #expect(throws: SDPParseError.malformedMediaLine(line: 2)) { try SessionDescription(parsing: "v=0\r\nm=audio 70000 RTP/AVP 0\r\n") }
        #expect(throws: SDPParseError.malformedAttribute(name: "rtpmap", line: 3)) {
            try SessionDescription(parsing: "v=0\r\nm=audio 9 RTP/AVP 0\r\na=rtpmap:200 x/1\r\n")
        }
        #expect(throws: SDPParseError.malformedAttribute(name: "setup", line: 2)) { try SessionDescription(parsing: "v=0\r\na=setup:maybe\r\n") }
        #expect(throws: SDPParseError.malformedAttribute(name: "extmap", line: 3)) {
            try SessionDescription(parsing: "v=0\r\nm=audio 9 RTP/AVP 0\r\na=extmap:0 urn:x\r\n")
        }
    }

    @Test func formatParametersToleratePiecesWithoutKeysOrValues() {
        let codec = SDPCodec(payloadType: 96, name: "x", clockRate: 1, formatParameters: "=;==; a = 1 ;b;=c")
        #expect(codec.parameters == ["": "c", "a": "1", "b": ""])
    }

    /// Real offers with random characters overwritten by SDP's punctuation: parsing and
    /// answering either succeed or return an error, never trap.
    @Test func mutatedOffersNeverTrap() async throws {
        let offer = Array(try OfferFixtures.chromiumSimulcastOffer)
        let punctuation: [Character] = [":", "=", " ", "/", ";", "\n", "a", "m", "0", "9", "*", "-"]
        let options = SDPAnswerTests.options
        await propertyCheck(count: 300, input: zip(Gen.int(in: 0...(offer.count - 1)), Gen.int(in: 0...11)).array(of: 1...12)) { edits in
            var text = offer
            for (position, symbol) in edits { text[position] = punctuation[symbol] }
            if let parsed = try? SessionDescription(parsing: String(text)) {
                _ = try? SDPAnswer(answering: parsed, options: options)
                for section in parsed.media { for codec in section.codecs { _ = codec.parameters } }
            }
        }
    }

    @Test func everyPrefixOfARealOfferParsesOrFailsCleanly() throws {
        let offer = try OfferFixtures.chromiumSimulcastOffer
        let characters = Array(offer)
        for cut in stride(from: 0, to: characters.count, by: 7) {
            _ = try? SessionDescription(parsing: String(characters[..<cut]))
        }
    }
}
