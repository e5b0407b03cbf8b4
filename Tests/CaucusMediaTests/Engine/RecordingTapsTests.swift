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

    /// Taps and the up-tracks they mark, as the engine holds them; ``tap(_:)`` reads a packet
    /// as the engine's packet path does: its up-track found by SSRC, its mark read, then tapped.
    struct Marked {
        var taps = RecordingTaps()
        var upTracks: [UInt32: UpTrack]
        let streams: [PublishedStream: UInt32]
        let catalog: FormatCatalog

        init(_ engine: ForwardingEngine) {
            upTracks = engine.upTracks
            streams = engine.ssrcsByStream
            catalog = engine.catalog
        }

        mutating func record(_ publishers: Set<Int>) { taps.record(publishers) }
        mutating func learn() { taps.learn(streams: streams, upTracks: &upTracks) }

        func tap(_ packet: [UInt8]) -> ForwardingEngine.RecordedPacket? {
            guard packet.count >= 12, let track = upTracks[ForwardingEngine.read32(packet, at: 8)], track.isRecorded else { return nil }
            guard let format = track.format else {
                Issue.record("a marked up-track has a format")
                return nil
            }
            return RecordingTaps.tap(packet, of: track.stream, in: catalog.recordable[format])
        }
    }

    /// Taps for `publishers` learned from `engine`'s streams.
    static func taps(recording publishers: Set<Int>, of engine: ForwardingEngine) -> Marked {
        var taps = Marked(engine)
        taps.record(publishers)
        taps.learn()
        return taps
    }

    @Test func onlyARecordedPublishersStreamsInTheirOwnPayloadTypeAreTapped() throws {
        // Users 1, 2 and 3: audio on SSRC n (Opus 96), video on 10 × n (VP8 97).
        let engine = Packets.engine()
        let taps = Self.taps(recording: [2], of: engine)
        #expect(taps.taps.publishers == [2] && !taps.taps.isEmpty)
        #expect(taps.upTracks.filter(\.value.isRecorded).keys.sorted() == [2, 20], "2's audio and video, and nothing else")

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
        var taps = Marked(engine)
        taps.record([2])
        #expect(taps.tap(Packets.packet(ssrc: 20, payloadType: 97)) == nil, "the streams are not learned yet")
        taps.learn()
        #expect(taps.tap(Packets.packet(ssrc: 20, payloadType: 97)) != nil)

        taps.record([])
        taps.learn()
        #expect(taps.taps.isEmpty && !taps.upTracks.values.contains(where: \.isRecorded), "every mark cleared")
        #expect(taps.tap(Packets.packet(ssrc: 20, payloadType: 97)) == nil)
    }

    @Test func ofASimulcastPublicationOnlyTheLayerForwardedNowIsMarked() throws {
        typealias Simulcast = SimulcastRoutingTests
        let (engine, _) = try Simulcast.watching()
        engine.receive(rtp: Simulcast.layerPacket(ssrc: 501, sequenceNumber: 1, rid: "l"), from: 2, at: .milliseconds(1))
        engine.receive(rtp: Simulcast.layerPacket(ssrc: 502, sequenceNumber: 1, rid: "h", size: 1000), from: 2, at: .milliseconds(2))
        #expect(engine.upTracks[501] != nil && engine.upTracks[502] != nil, "both layers are up-tracks")
        engine.record([2])
        #expect(engine.upTracks[501]?.isRecorded == true, "the layer forwarded now")
        #expect(engine.upTracks[502]?.isRecorded == false, "a layer learned, not forwarded")
        let marked = engine.upTracks.filter(\.value.isRecorded).values.map(\.stream.publisher)
        #expect(Set(marked) == [2], "1 is not recorded")
        engine.record([])
        let stillMarked = engine.upTracks.values.contains(where: \.isRecorded)
        #expect(!stillMarked)
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
