import CaucusCore
import CaucusMedia
import CaucusSFU
import Foundation
import Testing
@_spi(Benchmarks) @testable import CaucusServer

/// A whole shard driven in memory (`InMemoryShard`): three users' real client stacks connect
/// through the core (ICE, DTLS, SRTP), and a network that loses and reorders carries their
/// media. Bo's one video slot shows Ada in their room, then Cy after Bo's move to Cy's room;
/// what Bo decrypts is compared, packet by packet, with whom the routing puts in the slot.
@Suite struct MediaShardCoreTests {
    static let (ada, bo, cy) = (1, 2, 3)
    static let (adaSSRC, cySSRC): (UInt32, UInt32) = (0xA0A0_0001, 0xC0C0_0001)
    static let (roomA, roomC) = (Location.room(RoomID(1)), Location.room(RoomID(2)))

    /// One whole VP8 frame in one packet of `ssrc`: `keyframe` or not, its payload naming its
    /// publisher (`mark`) and its own sequence number, so a subscriber can tell what it got
    /// whatever the router rewrote.
    static func frame(_ ssrc: UInt32, _ sequence: UInt16, mark: UInt8, keyframe: Bool = false) -> [UInt8] {
        let timestamp = UInt32(sequence) &* 3_000
        var packet: [UInt8] = [0x80, 0x80 | SDPOffer.vp8PayloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += withUnsafeBytes(of: timestamp.bigEndian, Array.init) + withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        // RFC 7741: S set, partition 0; then the frame's first byte, whose low bit clear is a keyframe.
        packet += [0x10, keyframe ? 0x00 : 0x01, mark, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        return packet + [UInt8](repeating: 0x42, count: 40)
    }

    /// What a received packet shows: (its SSRC, its sequence number, the publisher's mark and
    /// the publisher's own sequence number), or nil for a packet without a frame (padding).
    static func shown(_ packet: [UInt8]) -> (ssrc: UInt32, sequence: UInt16, mark: UInt8, original: UInt16)? {
        // CaucusMedia's parser skips the CSRCs and any header extension the router wrote.
        guard let rtp = try? RTPPacket(decoding: packet), rtp.paddingLength == 0, rtp.payload.count >= 5, rtp.payload[0] == 0x10
        else { return nil }
        return (rtp.ssrc, rtp.sequenceNumber, rtp.payload[2], UInt16(rtp.payload[3]) << 8 | UInt16(rtp.payload[4]))
    }

    static func sequence(of datagram: [UInt8]) -> UInt16 { UInt16(datagram[2]) << 8 | UInt16(datagram[3]) }
    static func ssrc(of datagram: [UInt8]) -> UInt32 { datagram[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// Asks again for what Bo is missing between the first and last packets it got of its slot
    /// (a generic NACK, as every subscriber stack sends), until nothing is missing or `tries`
    /// rounds went by; the network delivers the repairs.
    static func repair(_ shard: InMemoryShard, slot: UInt32, tries: Int = 5) throws {
        for _ in 0..<tries {
            let missing = holes(in: shard, slot: slot)
            if missing.isEmpty { return }
            try shard.send(rtcp: [.genericNACK(RTCPGenericNACK(senderSSRC: 0xB0B0_0001, mediaSSRC: slot, lost: missing))], from: bo)
        }
    }

    /// The sequence numbers Bo lacks between the first packet of `slot` it got and the last
    /// (counted from the first, so a number that wraps past 65,535 is still in order).
    static func holes(in shard: InMemoryShard, slot: UInt32) -> [UInt16] {
        let numbers = shard.clients[bo]!.received.filter { ssrc(of: $0) == slot }.map(sequence(of:))
        guard let first = numbers.first else { return [] }
        let offsets = Set(numbers.map { $0 &- first })
        return (0...(offsets.max() ?? 0)).filter { !offsets.contains($0) }.map { first &+ $0 }
    }

    @Test func lossReorderAndAMoveThroughOneShardInMemory() throws {
        let shard = try InMemoryShard()
        try shard.connect(Self.ada, sections: [.publishing(.video, ssrc: Self.adaSSRC)])
        try shard.connect(Self.bo, sections: [.receiving(.video)])
        try shard.connect(Self.cy, sections: [.publishing(.video, ssrc: Self.cySSRC)])
        // What each may receive is the session's to say, as its handovers do: its room's media.
        shard.route([
            Self.ada: (Self.roomA, []), Self.cy: (Self.roomC, []),
            Self.bo: (Self.roomA, [PublishedStream(publisher: Self.ada, kind: .video)]),
        ])

        // The network: Ada's 110 is lost on its way in, her 120 and 121 arrive swapped, the
        // shard's first NACK to her is lost (only its repair timer can ask again), and the 5th
        // and 25th packets forwarded to Bo are lost on their way out.
        var toBo = 0
        var nacksLost = 0
        shard.fate = { toServer, _, datagram in
            // SRTCP leaves the first packet's header in clear: 205 with format 1 is a generic NACK,
            // which only the shard sends to a client here.
            if !toServer, DatagramKind(classifying: datagram) == .rtcp, datagram[1] == 205, datagram[0] & 0x1F == 1, nacksLost == 0 {
                nacksLost += 1
                return .lose
            }
            guard DatagramKind(classifying: datagram) == .rtp else { return .deliver }
            if toServer {
                guard Self.ssrc(of: datagram) == Self.adaSSRC else { return .deliver }
                switch Self.sequence(of: datagram) {
                case 110: return .lose
                case 120: return .holdForNext
                default: return .deliver
                }
            }
            toBo += 1
            return toBo == 5 || toBo == 25 ? .lose : .deliver
        }
        for sequence in UInt16(100)..<140 {
            try shard.publish(Self.frame(Self.adaSSRC, sequence, mark: 0xAD, keyframe: sequence == 100), from: Self.ada)
        }
        shard.drain()
        shard.fate = { _, _, _ in .deliver }
        #expect(nacksLost == 1, "the shard did not ask Ada for 110 when 111 showed it lost")

        // The shard's repair timer asks Ada again for 110, one retry interval after the ask
        // that was lost; she sends it again.
        let lostAt = shard.now
        var askedAt: Duration?
        for _ in 0..<100 where askedAt == nil {
            shard.advance(by: .milliseconds(5))
            shard.tick()
            let asked = shard.clients[Self.ada]!.receivedRTCP.contains { compound in
                ((try? RTCPPacket.decodeCompound(compound)) ?? []).contains { packet in
                    if case .genericNACK(let nack) = packet { nack.mediaSSRC == Self.adaSSRC && nack.lostSequenceNumbers.contains(110) } else { false }
                }
            }
            if asked { askedAt = shard.now }
        }
        let askedAgain = try #require(askedAt, "the shard never asked Ada again for the packet it lost on its way in")
        #expect(askedAgain - lostAt >= UpstreamLoss.retryInterval, "asked again before the retry interval")
        #expect(askedAgain - lostAt < UpstreamLoss.retryInterval + .milliseconds(10), "asked again only at a later tick")
        try shard.publish(Self.frame(Self.adaSSRC, 110, mark: 0xAD), from: Self.ada)

        let beforeMove = shard.clients[Self.bo]!.received.compactMap(Self.shown)
        let slot = try #require(beforeMove.first?.ssrc)
        try Self.repair(shard, slot: slot)

        let shown = shard.clients[Self.bo]!.received.compactMap(Self.shown)
        #expect(Set(shown.map(\.ssrc)) == [slot], "Bo's slot changed SSRC")
        #expect(Set(shown.map(\.mark)) == [0xAD], "Bo's slot showed someone but Ada in her room")
        #expect(Set(shown.map(\.original)) == Set(100..<140), "Bo did not get every frame Ada sent, after the repairs")
        // The subscriber sees one stream without holes: the repaired packets took their places.
        for packet in shown {
            #expect(packet.sequence &- shown[0].sequence == packet.original &- 100, "frame \(packet.original) out of its place")
        }

        // Bo moves to Cy's room; Ada goes on talking in hers, Cy starts.
        let movedAt = shard.clients[Self.bo]!.received.count
        shard.route([Self.bo: (Self.roomC, [PublishedStream(publisher: Self.cy, kind: .video)])])
        // A packet to Bo lost in the new room too.
        toBo = 0
        shard.fate = { toServer, _, datagram in
            guard !toServer, DatagramKind(classifying: datagram) == .rtp else { return .deliver }
            toBo += 1
            return toBo == 8 ? .lose : .deliver
        }
        for index in UInt16(0)..<20 {
            try shard.publish(Self.frame(Self.adaSSRC, 140 + index, mark: 0xAD), from: Self.ada)
            try shard.publish(Self.frame(Self.cySSRC, 500 + index, mark: 0xC7, keyframe: index == 0), from: Self.cy)
        }
        shard.fate = { _, _, _ in .deliver }
        try Self.repair(shard, slot: slot)

        let afterMove = shard.clients[Self.bo]!.received[movedAt...].compactMap(Self.shown)
        #expect(Set(afterMove.map(\.mark)) == [0xC7], "after the move Bo's slot showed someone but Cy")
        #expect(Set(afterMove.map(\.ssrc)) == [slot], "the move changed the slot's SSRC")
        #expect(Set(afterMove.map(\.original)) == Set(500..<520), "Bo did not get every frame Cy sent, after the repairs")
        // One stream without holes across the move: what the slot carried (frames, and any
        // packet that closed Ada's picture) numbered on from where it was.
        #expect(Self.holes(in: shard, slot: slot) == [], "holes in Bo's slot after the repairs")
        let stats = try #require(shard.core.table.stats(for: shard.clients[Self.bo]!.key))
        #expect(stats.isConnected)
    }
}
