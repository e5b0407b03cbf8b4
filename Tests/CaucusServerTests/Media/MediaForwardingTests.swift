import CaucusCore
import CaucusMedia
import Foundation
import Testing
@testable import CaucusServer

/// Media through `caucus serve` between two users of the client-role stack over real UDP: RTP
/// on the receiver's slot, its NACK back to the publisher with the publisher's own numbers, the
/// publisher's sender report on the receiver's slot, and the forwarding metrics.
@Suite(.serialized) struct MediaForwardingTests {
    @Test func rtpNackAndSenderReportsCrossTheRouterWithTheirNumbersMapped() async throws {
        let server = try await TestServer.start()
        let (publisher, receiver) = try await MediaTestClient.adaPublishingToBo(on: server)
        let slot = try #require(receiver.slotSSRCs["0"])

        // Until the routing table that follows the publication reaches the media loop.
        var sequence: UInt16 = 1_000
        var forwarded: [UInt8]?
        for _ in 0..<100 where forwarded == nil {
            sequence += 1
            try publisher.sendMedia(sequence...sequence)
            forwarded = receiver.next { event -> [UInt8]? in if case .rtp(let packet) = event { packet } else { nil } }
        }
        let packet = try #require(forwarded, "no RTP reached Bo's slot")
        let header = try RTPPacket(decoding: packet)
        #expect(header.ssrc == slot, "the slot's own SSRC, not the publisher's")
        #expect(packet.suffix(60) == ArraySlice(repeating: 0x55, count: 60), "the payload as sent")
        let original = sequence

        try receiver.send(rtcp: [.genericNACK(RTCPGenericNACK(senderSSRC: 77, mediaSSRC: slot, lost: [header.sequenceNumber]))])
        let nack = publisher.next { event -> RTCPGenericNACK? in
            guard case .rtcp(let bytes) = event, let packets = try? RTCPPacket.decodeCompound(bytes) else { return nil }
            return packets.lazy.compactMap { if case .genericNACK(let nack) = $0 { nack } else { nil } }.first
        }
        #expect(nack?.mediaSSRC == MediaTestClient.ssrc)
        #expect(nack?.lostSequenceNumbers == [original], "Ada's own number for the packet Bo lost")

        let report = RTCPSenderReport(ssrc: MediaTestClient.ssrc, ntpTimestamp: 0x1234_5678_9ABC, rtpTimestamp: 1, packetCount: 9, octetCount: 540)
        try publisher.send(rtcp: [.senderReport(report)])
        let translated = receiver.next { event -> RTCPSenderReport? in
            guard case .rtcp(let bytes) = event, let packets = try? RTCPPacket.decodeCompound(bytes) else { return nil }
            return packets.lazy.compactMap { if case .senderReport(let report) = $0 { report } else { nil } }.first
        }
        #expect(translated?.ssrc == slot && translated?.ntpTimestamp == report.ntpTimestamp)

        let metrics = try await HTTP.get(server, "/metrics").body
        for name in ["caucus_media_rtp_forwarded_total", "caucus_media_bytes_forwarded_total", "caucus_media_slot_switches_total"] {
            let value = metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
            #expect((value ?? 0) >= 1, "\(name) in /metrics")
        }
        await server.stop()
    }
}
