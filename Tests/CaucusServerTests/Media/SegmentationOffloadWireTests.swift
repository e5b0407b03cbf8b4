import CaucusCore
import CaucusMedia
import CaucusTestSupport
import Foundation
import NIOCore
import Testing
@testable import CaucusServer

/// Forwarded media sent in runs the kernel cuts up (UDP GSO, `--media-gso`), over real UDP
/// through `caucus serve`: a subscriber receives every packet of a publisher's bursts as a
/// datagram of its own, authenticated, intact and in order; `off` sends none in runs.
@Suite(.serialized) struct SegmentationOffloadWireTests {
    @Test(.enabled(if: System.supportsUDPSegmentationOffload, "UDP_SEGMENT is Linux's (4.18 on)"))
    func burstsReachTheSubscriberIntactAndInOrderThroughRuns() async throws {
        let (received, segmented) = try await forwardBursts(offload: .on)
        #expect(segmented.offloading)
        #expect(segmented.count > 0, "no burst left in a run")
        try expectIntactAndInOrder(received)
    }

    @Test func offSendsEachDatagramAlone() async throws {
        let (received, segmented) = try await forwardBursts(offload: .off)
        #expect(!segmented.offloading)
        #expect(segmented.count == 0)
        try expectIntactAndInOrder(received)
    }

    /// The same bursts with `--media-gso` unset: on this machine's kernel (`uname -r`), as
    /// `auto` decides.
    @Test func autoFollowsTheKernel() async throws {
        let server = try await TestServer.start()
        let expected = MediaSegmentationOffload.automatic.isUsed(
            kernelRelease: MediaSegmentationOffload.runningKernelRelease, supported: System.supportsUDPSegmentationOffload)
        #expect(await server.server.media.segmentedDatagrams().offloading == expected)
        await server.stop()
    }

    // MARK: - Helpers

    /// Bursts of 8 packets from Ada, each its own number in the payload's first two bytes and
    /// then that number's low byte, the last of each shorter (as a frame's last packet is; the
    /// kernel cuts a run's last segment at its own length), and the first too: a longer packet
    /// of the same stream never leads a shorter one (only another stream's may), so a burst
    /// that arrives in order leaves in order: until one left the server in a run (at most 200
    /// bursts; each burst's packets reach the server together, and its loop reads them in one
    /// batch when they have arrived before it woke), then 5 more. Returns what Bo's audio
    /// slot received, and the server's count of datagrams sent in runs.
    private func forwardBursts(offload: MediaSegmentationOffload) async throws -> (
        received: [RTPPacket], segmented: (count: Int, offloading: Bool)
    ) {
        let server = try await TestServer.start(configure: { $0.mediaSegmentationOffload = offload })
        let (publisher, receiver) = try await MediaTestClient.adaPublishingToBo(on: server)
        var sequence: UInt16 = 1_000
        // Until the routing table that follows the publication reaches the media loop.
        var first: RTPPacket?
        for _ in 0..<100 where first == nil {
            sequence += 1
            publisher.socket.send(try packet(sequence, from: publisher), to: publisher.mediaPort)
            first = receiver.next(reads: 4) { if case .rtp(let bytes) = $0 { try? RTPPacket(decoding: bytes) } else { nil } }
        }
        var received = [try #require(first, "no RTP reached Bo's slot")]
        let media = server.server.media
        var extra = 5
        for _ in 0..<200 where extra > 0 {
            let burst = (sequence + 1)...(sequence + 8)
            sequence += 8
            for number in burst {
                let short = number == burst.lowerBound || number == burst.upperBound
                publisher.socket.send(try packet(number, from: publisher, short: short), to: publisher.mediaPort)
            }
            while let next = receiver.next(reads: 4, { if case .rtp(let bytes) = $0 { try? RTPPacket(decoding: bytes) } else { nil } }) {
                received.append(next)
                if next.payload.prefix(2) == [UInt8(burst.upperBound >> 8), UInt8(burst.upperBound & 0xFF)] { break }
            }
            let segmented = await media.segmentedDatagrams().count
            if offload == .off || segmented > 0 { extra -= 1 }
        }
        let segmented = await media.segmentedDatagrams()
        await server.stop()
        return (received, segmented)
    }

    private func packet(_ number: UInt16, from client: MediaTestClient, short: Bool = false) throws -> [UInt8] {
        // The timestamp moves with the number: only the SSRC says which packets are one stream's.
        var packet: [UInt8] = [0x80, 111, UInt8(number >> 8), UInt8(number & 0xFF), 0, 0, UInt8(number >> 8), UInt8(number & 0xFF), 0xCA, 0xFE, 0, 1]
        packet += [UInt8(number >> 8), UInt8(number & 0xFF)] + [UInt8](repeating: UInt8(number & 0xFF), count: short ? 58 : 98)
        return try #require(client.peer.protect(rtp: packet)).bytes
    }

    /// Each packet authenticated (the client's SRTP dropped any that was not), its payload as
    /// Ada sent that number, and every number from the first received on, in the order she
    /// sent them.
    private func expectIntactAndInOrder(_ received: [RTPPacket]) throws {
        #expect(received.count > 8)
        #expect(received.contains { $0.payload.count == 60 }, "a burst's shorter last packet")
        let numbers = received.map { UInt16($0.payload[0]) << 8 | UInt16($0.payload[1]) }
        #expect(numbers == Array(numbers[0]...numbers[numbers.count - 1]), "every packet of every burst, in order")
        var previous: (sent: UInt16, forwarded: UInt16)?
        for packet in received {
            try #require(packet.payload.count == 100 || packet.payload.count == 60)
            let sent = UInt16(packet.payload[0]) << 8 | UInt16(packet.payload[1])
            #expect(packet.payload.dropFirst(2).allSatisfy { $0 == UInt8(sent & 0xFF) }, "packet \(sent)'s payload as sent")
            if let previous {
                #expect(sent > previous.sent, "\(sent) after \(previous.sent)")
                #expect(packet.sequenceNumber &- previous.forwarded == sent &- previous.sent, "the slot's numbers follow Ada's")
            }
            previous = (sent, packet.sequenceNumber)
        }
    }
}
