import CaucusCore
import CaucusMedia
import CaucusSFU
import Foundation
import Testing
@testable import CaucusServer

/// A video packet lost on its way to the server is asked for again every 30 ms
/// (`UpstreamLoss.retryInterval`) until its asks are spent, whatever the media tick: the loop
/// wakes at the engine's repair deadline, moved earlier than the wake already set for the
/// engines' periodic work. With the tick at 20 s, an ask that waited for the next periodic
/// wake (anywhere in the 20 s after the loss) would come within a second of the one before it
/// only 1 time in 20.
@Suite(.serialized) struct MediaRepairTimerTests {
    @Test func aLostVideoPacketIsAskedForAgainAtTheRetryIntervalNotAtTheTick() async throws {
        let tick = Duration.seconds(20)
        let server = try await TestServer.start { $0.mediaTickInterval = tick }
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let publisher = try await MediaTestClient.connect(
            ada, on: server, sections: [.init(kind: .video, direction: .sendonly, sendingSSRC: MediaTestClient.ssrc)])
        let receiver = try await MediaTestClient.connect(bo, on: server, sections: [.receiving(.video)])
        try await ada.request("publish", ["media": ["video"]])

        // Until the routing table that follows the publication reaches the media loop.
        var sequence: UInt16 = 2_000
        var forwarded = false
        for _ in 0..<100 where !forwarded {
            sequence += 1
            try publisher.sendMedia(sequence...sequence, payloadType: SDPOffer.vp8PayloadType)
            forwarded = receiver.next(reads: 4) { event -> Bool? in if case .rtp = event { true } else { nil } } ?? false
        }
        try #require(forwarded, "no video reached Bo's slot")

        let lost = sequence &+ 1
        try publisher.sendMedia((lost &+ 1)...(lost &+ 1), payloadType: SDPOffer.vp8PayloadType)
        var asks: [ContinuousClock.Instant] = []
        let deadline = ContinuousClock.now + tick * 5
        while asks.count < UpstreamLoss.maximumAsks, ContinuousClock.now < deadline {
            let asked = publisher.next(reads: 10) { event -> Bool? in
                guard case .rtcp(let bytes) = event, let packets = try? RTCPPacket.decodeCompound(bytes) else { return nil }
                return packets.contains { if case .genericNACK(let nack) = $0 { nack.lostSequenceNumbers.contains(lost) } else { false } } ? true : nil
            }
            if asked == true { asks.append(ContinuousClock.now) }
        }
        #expect(asks.count == UpstreamLoss.maximumAsks, "every ask of the lost packet, within five ticks")
        // Each retry 30 ms after the one before (the loopback adds microseconds): far less than a second.
        for (earlier, later) in zip(asks, asks.dropFirst()) {
            #expect(later - earlier < .seconds(1), "an ask came \(later - earlier) after the one before")
        }
        await server.stop()
    }
}
