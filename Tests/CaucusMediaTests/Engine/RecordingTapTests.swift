import Foundation
import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's recording tap: what recorded publishers send reaches the shell as `.record`
/// outputs (their RTP as it arrived, their sender reports), nobody else's does, and a
/// recorder's keyframe requests are paced with the engine's own.
@Suite struct RecordingTapTests {
    typealias Routing = ForwardingEngineTests

    /// Users 1, 2 and 3, each publishing audio (SSRC n) and video (10 × n), aiortc's numbering
    /// (Opus 96, VP8 97).
    static func engine() -> ForwardingEngine {
        let engine = ForwardingEngine()
        for user in 1...3 {
            let ssrc = UInt32(user)
            engine.addPeer(user, plan: Routing.plan(audioSSRC: ssrc, videoSSRC: ssrc * 10), now: .zero)
        }
        engine.pollOutput { _ in }
        return engine
    }

    static func packet(ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16 = 1) -> [UInt8] {
        var packet = Routing.rtp(ssrc: ssrc, sequenceNumber: sequenceNumber)
        packet[1] = payloadType
        return packet
    }

    static func recorded(_ engine: ForwardingEngine) -> [ForwardingEngine.RecordedMedia] {
        var found: [ForwardingEngine.RecordedMedia] = []
        engine.pollOutput { if case .record(let media) = $0 { found.append(media) } }
        return found
    }

    static func senderReport(ssrc: UInt32, rtpTimestamp: UInt32 = 4_000) -> [UInt8] {
        RTCPPacket.senderReport(RTCPSenderReport(
            ssrc: ssrc, ntpTimestamp: 0xE000_0000_8000_0000, rtpTimestamp: rtpTimestamp, packetCount: 1, octetCount: 9)).encoded()
    }

    /// A publisher recorded from now on has each stream's latest sender report handed over at
    /// once, with when it came: a recording that starts need not wait for the next (seconds,
    /// for Chromium's audio). A publisher recorded already has nothing handed over again.
    @Test func aPublisherRecordedFromNowOnHasItsLatestReportsHandedOverWithTheirArrival() throws {
        let engine = Self.engine()
        engine.receive(rtcp: Self.senderReport(ssrc: 2), from: 2, at: .milliseconds(100))
        engine.receive(rtcp: Self.senderReport(ssrc: 20), from: 2, at: .milliseconds(200))
        engine.receive(rtcp: Self.senderReport(ssrc: 20, rtpTimestamp: 94_000), from: 2, at: .milliseconds(1_200))
        engine.receive(rtcp: Self.senderReport(ssrc: 30), from: 3, at: .milliseconds(1_300))
        engine.receive(rtcp: Self.senderReport(ssrc: 10, rtpTimestamp: 7), from: 2, at: .milliseconds(1_400))
        #expect(Self.recorded(engine).isEmpty, "nobody is recorded yet")

        func handed(_ media: [ForwardingEngine.RecordedMedia]) -> [String] {
            media.map { media in
                guard case .senderReport(let report) = media else { return "\(media)" }
                return "\(report.stream.publisher)/\(report.stream.kind) \(report.report.ssrc)@\(report.report.rtpTimestamp) "
                    + "\(report.clockRate) \(report.arrival.map { "\($0)" } ?? "now")"
            }
        }
        engine.record([2])
        #expect(handed(Self.recorded(engine)) == ["2/audio 2@4000 48000 0.1 seconds", "2/video 20@94000 90000 1.2 seconds"],
                "user 2's latest of each stream, not user 1's SSRC 10 that user 2 named")
        engine.record([2, 3])
        #expect(handed(Self.recorded(engine)) == ["3/video 30@4000 90000 1.3 seconds"], "only the one recorded from now on")
        engine.record([2, 3])
        #expect(Self.recorded(engine).isEmpty)
        engine.receive(rtcp: Self.senderReport(ssrc: 2, rtpTimestamp: 52_000), from: 2, at: .milliseconds(1_500))
        #expect(handed(Self.recorded(engine)) == ["2/audio 2@52000 48000 now"], "one that comes while recorded, as it comes")
    }

    @Test func aRecordedPublishersPacketsAndReportsReachTheShellAndNobodyElses() throws {
        let engine = Self.engine()
        engine.receive(rtp: Self.packet(ssrc: 20, payloadType: 97), from: 2, at: .milliseconds(1))
        #expect(Self.recorded(engine).isEmpty, "nobody is recorded yet")

        engine.record([2])
        let video = Self.packet(ssrc: 20, payloadType: 97, sequenceNumber: 2)
        engine.receive(rtp: video, from: 2, at: .milliseconds(2))
        engine.receive(rtp: Self.packet(ssrc: 2, payloadType: 96), from: 2, at: .milliseconds(3))
        engine.receive(rtp: Self.packet(ssrc: 30, payloadType: 97), from: 3, at: .milliseconds(4))
        let media = Self.recorded(engine)
        try #require(media.count == 2, "user 2's video and audio, not user 3's: \(media)")
        guard case .rtp(let first) = media[0], case .rtp(let second) = media[1] else { Issue.record("\(media)"); return }
        #expect(first.stream == PublishedStream(publisher: 2, kind: .video) && first.codec == "vp8" && first.clockRate == 90_000)
        #expect(first.packet == video, "the packet as it arrived")
        #expect(second.stream == PublishedStream(publisher: 2, kind: .audio) && second.codec == "opus" && second.clockRate == 48_000)

        // Its sender report; one naming its SSRC from someone else is not its.
        engine.receive(rtcp: Self.senderReport(ssrc: 20), from: 2, at: .milliseconds(5))
        engine.receive(rtcp: Self.senderReport(ssrc: 20), from: 3, at: .milliseconds(6))
        engine.receive(rtcp: Self.senderReport(ssrc: 30), from: 3, at: .milliseconds(7))
        let reports = Self.recorded(engine)
        try #require(reports.count == 1, "\(reports)")
        guard case .senderReport(let report) = reports[0] else { Issue.record("\(reports)"); return }
        #expect(report.stream == PublishedStream(publisher: 2, kind: .video) && report.clockRate == 90_000 && report.isForwardedLayer)
        #expect(report.report.rtpTimestamp == 4_000)

        // A payload type that is not the stream's codec (a probe's padding, say) is not media.
        engine.receive(rtp: Self.packet(ssrc: 20, payloadType: 120, sequenceNumber: 3), from: 2, at: .milliseconds(8))
        #expect(Self.recorded(engine).isEmpty)

        engine.record([])
        engine.receive(rtp: Self.packet(ssrc: 20, payloadType: 97, sequenceNumber: 4), from: 2, at: .milliseconds(9))
        #expect(Self.recorded(engine).isEmpty, "recording stopped")
    }

    /// Recording names users, not SSRCs: a recorded user's peer that comes after recording
    /// started is recorded, and one that comes back on new SSRCs is recorded on those alone.
    @Test func aRecordedUsersPeerIsTappedWhenItComesAndWhenItComesBack() throws {
        let engine = Self.engine()
        engine.record([2, 4])
        engine.addPeer(4, plan: Routing.plan(audioSSRC: 4, videoSSRC: 40), now: .milliseconds(1))
        engine.pollOutput { _ in }
        engine.receive(rtp: Self.packet(ssrc: 40, payloadType: 97), from: 4, at: .milliseconds(2))
        let late = Self.recorded(engine)
        try #require(late.count == 1, "\(late)")
        guard case .rtp(let packet) = late[0] else { Issue.record("\(late)"); return }
        #expect(packet.stream == PublishedStream(publisher: 4, kind: .video))

        engine.removePeer(2, now: .milliseconds(3))
        engine.addPeer(2, plan: Routing.plan(audioSSRC: 5, videoSSRC: 50), now: .milliseconds(4))
        engine.pollOutput { _ in }
        engine.receive(rtp: Self.packet(ssrc: 20, payloadType: 97, sequenceNumber: 2), from: 2, at: .milliseconds(5))
        #expect(Self.recorded(engine).isEmpty, "the old peer's SSRC is nobody's now")
        engine.receive(rtp: Self.packet(ssrc: 50, payloadType: 97, sequenceNumber: 3), from: 2, at: .milliseconds(6))
        let back = Self.recorded(engine)
        try #require(back.count == 1, "\(back)")
        guard case .rtp(let again) = back[0] else { Issue.record("\(back)"); return }
        #expect(again.stream == PublishedStream(publisher: 2, kind: .video) && again.packet[8...11] == [0, 0, 0, 50])
    }

    @Test func aRecordersKeyframeRequestIsPacedWithTheEngines() throws {
        let engine = Self.engine()
        let stream = PublishedStream(publisher: 2, kind: .video)
        engine.requestKeyframe(of: stream, now: .milliseconds(100))
        engine.requestKeyframe(of: stream, now: .milliseconds(110))
        var plis: [(Int, UInt32)] = []
        var packets: [(Int, [UInt8])] = []
        engine.pollOutput { if case .rtcp(let user, let packet, .keyframeRequest) = $0 { packets.append((user, packet)) } }
        for (user, packet) in packets {
            for case .pictureLossIndication(_, let media) in try RTCPPacket.decodeCompound(packet) { plis.append((user, media)) }
        }
        #expect(plis.count == 1 && plis[0] == (2, 20), "one PLI to user 2 for SSRC 20: \(plis)")
        engine.requestKeyframe(of: PublishedStream(publisher: 9, kind: .video), now: .milliseconds(120))
        var none = 0
        engine.pollOutput { _ in none += 1 }
        #expect(none == 0, "no stream, no request")
    }

    /// Chromium's redundant audio (RFC 2198, payload type 63 around Opus 111) is recorded as its
    /// primary encoding alone, with Opus's payload type: the file holds each frame once.
    @Test func redundantAudioIsRecordedAsItsPrimaryEncoding() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/chromium-offer.sdp")
        let chromium = Routing.plan(of: try SessionDescription(parsing: String(contentsOf: url, encoding: .utf8)), firstSSRC: 7000)
        try #require(chromium.publishedFormats[.audio]?.redundancyPayloadType == 63, "the answer keeps RED")
        let ssrc = try #require(chromium.publishedSSRCs[.audio])
        let engine = ForwardingEngine()
        engine.addPeer(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10), now: .zero)
        engine.addPeer(2, plan: chromium, now: .zero)
        engine.record([2])
        engine.pollOutput { _ in }
        // One redundant block (F set, Opus, 960 ticks back, 2 bytes), then the primary (Opus).
        let payload: [UInt8] = [0x80 | 111, 0x0F, 0x00, 0x02, 111, 0xAA, 0xBB, 0x01, 0x02, 0x03]
        let red = RTPPacket(payloadType: 63, sequenceNumber: 7, timestamp: 96_000, ssrc: ssrc, payload: payload).encoded()
        engine.receive(rtp: red, from: 2, at: .milliseconds(1))
        let media = Self.recorded(engine)
        guard media.count == 1, case .rtp(let recorded) = media[0] else { Issue.record("\(media)"); return }
        let packet = try RTPPacket(decoding: recorded.packet)
        #expect(packet.payloadType == 111 && packet.payload == [0x01, 0x02, 0x03] && packet.sequenceNumber == 7 && packet.timestamp == 96_000)
        #expect(recorded.codec == "opus")
    }
}
