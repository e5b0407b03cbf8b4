import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Testing

/// Recorded media waits for the writer as bytes copied into its batch (``RecordedBatch``): the
/// packet the engine handed over is not kept, so it dies on the media loop as it does when
/// nothing is recorded. Batches go back and forth through a pool that keeps a few.
@Suite struct RecordedBatchTests {
    static let stream = PublishedStream(publisher: 1, kind: .audio)

    static func packet(_ number: UInt16, payload: [UInt8] = [0xF8, 0xFF, 0xFE]) -> [UInt8] {
        RTPPacket(payloadType: 111, sequenceNumber: number, timestamp: UInt32(number) * 960, ssrc: 0x1234, payload: payload).encoded()
    }

    /// Hands `packet` to `queue` as the engine's tap does; the media value ends with the call.
    static func hand(_ packet: [UInt8], to queue: inout RecordedMediaQueue, at arrival: Duration) -> Bool {
        queue.append(.rtp(.init(stream: stream, codec: "opus", clockRate: 48_000, packet: packet)), arrival: arrival)
    }

    @Test func aPacketIsCopiedAndNotKept() throws {
        var queue = RecordedMediaQueue()
        var packet = Self.packet(1)
        // Its bytes, from an array of their own (a copy of `packet` would share its buffer).
        let original = Self.packet(1)
        let address = packet.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        _ = Self.hand(packet, to: &queue, at: .seconds(1))
        // Written to in place: had the queue kept the packet's buffer, this write would have
        // copied it first (copy on write), and the buffer would have moved.
        packet.withUnsafeMutableBufferPointer { $0[0] ^= 0xFF }
        #expect(packet.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address, "the queue holds no reference to the packet")

        _ = Self.hand(Self.packet(2, payload: [1, 2, 3, 4, 5]), to: &queue, at: .seconds(2))
        let taken = queue.take()
        let batch = try #require(taken)
        var read: [([UInt8], Duration)] = []
        batch.forEach { media, arrival in
            if case .rtp(let stream, let codec, let clockRate, let datagram) = media {
                #expect(stream == Self.stream && codec == .opus && clockRate == 48_000, "the codec named \"opus\", as the recorder takes it")
                read.append((Array(datagram), arrival))
            }
        }
        #expect(read.map(\.0) == [original, Self.packet(2, payload: [1, 2, 3, 4, 5])], "each packet's bytes as they were handed over")
        #expect(read.map(\.1) == [.seconds(1), .seconds(2)])
        #expect(batch.bytes == original.count + Self.packet(2, payload: [1, 2, 3, 4, 5]).count)
        #expect(queue.isEmpty)
        let after = queue.take()
        #expect(after == nil, "nothing waits after the batch was taken")
    }

    @Test func eachPacketCarriesItsCodecAsTheRecorderTakesItAndNoneForOneItDoesNotWrite() throws {
        var queue = RecordedMediaQueue()
        for name in ["opus", "vp8", "h264", "g722"] {
            _ = queue.append(.rtp(.init(stream: Self.stream, codec: name, clockRate: 48_000, packet: Self.packet(1))), arrival: .seconds(1))
        }
        let taken = queue.take()
        let batch = try #require(taken)
        var codecs: [TrackRecorder.Codec?] = []
        batch.forEach { media, _ in
            if case .rtp(_, let codec, _, _) = media { codecs.append(codec) }
        }
        #expect(codecs == [.opus, .vp8, .h264, nil])
    }

    @Test func aSenderReportKeepsItsPlaceAmongThePackets() throws {
        var queue = RecordedMediaQueue()
        _ = Self.hand(Self.packet(1), to: &queue, at: .seconds(1))
        let report = RTCPSenderReport(ssrc: 0x1234, ntpTimestamp: 1 << 32, rtpTimestamp: 960, packetCount: 1, octetCount: 3)
        _ = queue.append(.senderReport(.init(stream: Self.stream, clockRate: 48_000, report: report, isForwardedLayer: true, arrival: nil)), arrival: .seconds(2))
        // One handed over again when recording started keeps the time it came, not the hand-over's.
        let earlier = RTCPSenderReport(ssrc: 0x1234, ntpTimestamp: 1 << 32, rtpTimestamp: 480, packetCount: 1, octetCount: 3)
        _ = queue.append(
            .senderReport(.init(stream: Self.stream, clockRate: 48_000, report: earlier, isForwardedLayer: true, arrival: .milliseconds(1_500))),
            arrival: .seconds(3))
        _ = Self.hand(Self.packet(2), to: &queue, at: .seconds(4))
        let taken = queue.take()
        let batch = try #require(taken)
        var order: [String] = []
        batch.forEach { media, arrival in
            switch media {
            case .rtp(_, _, _, let datagram): order.append("rtp \(RTPHeaderFields.sequenceNumber(of: datagram) ?? 0) at \(arrival)")
            case .senderReport(let sent): order.append("report \(sent.report.rtpTimestamp) at \(arrival)")
            }
        }
        #expect(order == ["rtp 1 at 1.0 seconds", "report 960 at 2.0 seconds", "report 480 at 1.5 seconds", "rtp 2 at 4.0 seconds"])
        #expect(batch.count == 4)
    }

    @Test func thePoolHandsBackEmptiedBatchesAndKeepsOnlyAFew() {
        let pool = RecordedBatchPool()
        var queue = RecordedMediaQueue(pool: pool)
        // More batches than the pool keeps, all written at once (held here until given back).
        var written: [RecordedBatch] = []
        for round in 0..<(RecordedBatchPool.kept + 2) {
            _ = Self.hand(Self.packet(UInt16(round)), to: &queue, at: .seconds(1))
            guard let batch = queue.take() else { Issue.record("no batch"); return }
            written.append(batch)
        }
        #expect(Set(written.map(ObjectIdentifier.init)).count == written.count, "none was given back yet: each is a new one")
        for batch in written { pool.give(batch) }
        let next = (0..<written.count).map { _ in pool.take() }
        let recycled = next.filter { batch in written.contains { $0 === batch } }
        #expect(recycled.count == RecordedBatchPool.kept, "the pool kept \(RecordedBatchPool.kept) of \(written.count)")
        #expect(next.allSatisfy { $0.isEmpty && $0.bytes == 0 })
    }

    @Test func aBatchGivenBackIsEmptiedForTheNext() throws {
        let pool = RecordedBatchPool()
        var queue = RecordedMediaQueue(pool: pool)
        _ = Self.hand(Self.packet(1), to: &queue, at: .seconds(1))
        let taken = queue.take()
        let first = try #require(taken)
        pool.give(first)
        _ = Self.hand(Self.packet(9), to: &queue, at: .seconds(5))
        let again = queue.take()
        let second = try #require(again)
        #expect(second === first, "the batch given back is the one used next")
        var numbers: [UInt16] = []
        second.forEach { media, _ in
            if case .rtp(_, _, _, let datagram) = media { numbers.append(RTPHeaderFields.sequenceNumber(of: datagram) ?? 0) }
        }
        #expect(numbers == [9], "nothing of the batch's last use is left")
        #expect(second.bytes == Self.packet(9).count)
    }
}
