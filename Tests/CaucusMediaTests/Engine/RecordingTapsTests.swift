import Foundation
import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's recording taps, on their own: only a recorded publisher's streams, on the SSRC
/// each forwards now and in its own payload type, are tapped, once learned; redundant audio is
/// handed over as its primary encoding.
@Suite struct RecordingTapsTests {
    typealias Routing = ForwardingEngineTests
    typealias Packets = RecordingTapTests

    /// Taps for `publishers` learned from `engine`'s streams.
    static func taps(recording publishers: Set<Int>, of engine: ForwardingEngine) -> RecordingTaps {
        var taps = RecordingTaps()
        taps.record(publishers)
        taps.learn(streams: engine.ssrcsByStream, upTracks: engine.upTracks, catalog: engine.catalog)
        return taps
    }

    @Test func onlyARecordedPublishersStreamsInTheirOwnPayloadTypeAreTapped() throws {
        // Users 1, 2 and 3: audio on SSRC n (Opus 96), video on 10 × n (VP8 97).
        let engine = Packets.engine()
        let taps = Self.taps(recording: [2], of: engine)
        #expect(taps.publishers == [2] && !taps.isEmpty)

        let video = Packets.packet(ssrc: 20, payloadType: 97)
        let tapped = try #require(taps.tap(video))
        #expect(tapped.stream == PublishedStream(publisher: 2, kind: .video) && tapped.codec == "vp8" && tapped.clockRate == 90_000)
        #expect(tapped.packet == video, "the packet as it arrived")
        let audio = try #require(taps.tap(Packets.packet(ssrc: 2, payloadType: 96)))
        #expect(audio.stream == PublishedStream(publisher: 2, kind: .audio) && audio.codec == "opus" && audio.clockRate == 48_000)

        #expect(taps.tap(Packets.packet(ssrc: 30, payloadType: 97)) == nil, "3 is not recorded")
        #expect(taps.tap(Packets.packet(ssrc: 20, payloadType: 96)) == nil, "not the stream's payload type")
        #expect(taps.tap(Packets.packet(ssrc: 21, payloadType: 97)) == nil, "an SSRC the stream does not forward")
        #expect(taps.tap(Array(video.prefix(11))) == nil, "no whole header")
    }

    @Test func nothingIsTappedBeforeTheTapsAreLearnedNorAfterRecordingStops() {
        let engine = Packets.engine()
        var taps = RecordingTaps()
        taps.record([2])
        #expect(taps.tap(Packets.packet(ssrc: 20, payloadType: 97)) == nil, "the streams are not learned yet")
        taps.learn(streams: engine.ssrcsByStream, upTracks: engine.upTracks, catalog: engine.catalog)
        #expect(taps.tap(Packets.packet(ssrc: 20, payloadType: 97)) != nil)

        taps.record([])
        taps.learn(streams: engine.ssrcsByStream, upTracks: engine.upTracks, catalog: engine.catalog)
        #expect(taps.isEmpty)
        #expect(taps.tap(Packets.packet(ssrc: 20, payloadType: 97)) == nil)
    }

    @Test func redundantAudioIsTappedAsItsPrimaryEncodingAndABrokenOneNotAtAll() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/chromium-offer.sdp")
        let chromium = Routing.plan(of: try SessionDescription(parsing: String(contentsOf: url, encoding: .utf8)), firstSSRC: 7000)
        let ssrc = try #require(chromium.publishedSSRCs[.audio])
        let engine = ForwardingEngine()
        engine.addPeer(2, plan: chromium, now: .zero)
        let taps = Self.taps(recording: [2], of: engine)
        // One redundant block (F set, Opus, 960 ticks back, 2 bytes), then the primary (Opus).
        let payload: [UInt8] = [0x80 | 111, 0x0F, 0x00, 0x02, 111, 0xAA, 0xBB, 0x01, 0x02, 0x03]
        let red = RTPPacket(payloadType: 63, sequenceNumber: 7, timestamp: 96_000, ssrc: ssrc, payload: payload).encoded()
        let tapped = try RTPPacket(decoding: try #require(taps.tap(red)).packet)
        #expect(tapped.payloadType == 111 && tapped.payload == [0x01, 0x02, 0x03] && tapped.sequenceNumber == 7 && tapped.timestamp == 96_000)
        // A redundant block longer than the packet: nothing to record.
        let broken = RTPPacket(payloadType: 63, sequenceNumber: 8, timestamp: 96_960, ssrc: ssrc, payload: [0x80 | 111, 0x0F, 0x00, 0x40, 111]).encoded()
        #expect(taps.tap(broken) == nil)
    }
}
