@testable import CaucusMedia
import PropertyBased
import Testing

/// Random frames of each codec, packetised, sent through a lossy channel (drops, duplicates,
/// reordering, sometimes the receiver giving up on a gap early) across the sequence-number
/// and timestamp wraps, and reassembled: every delivered frame is its original, once; every
/// frame that lost a packet is reported lost and never delivered; every frame is one or the
/// other in the end. Without early give-ups, a VP8 or Opus frame is lost exactly when a
/// packet of it was dropped (an H.264 frame also when its predecessor's last packet was,
/// since nothing else shows where an access unit starts). Frames stay well under half the
/// assembler's span and reordering within it, so only loss makes it give up on a frame.
@Suite struct FrameAssemblerProperties {
    @Test(.shrinking(false), arguments: [FrameAssembler.Codec.opus, .vp8, .h264])
    func reassembledFramesAreTheOriginalsAndEveryDamagedOneIsReportedLost(codec: FrameAssembler.Codec) async {
        await propertyCheck(count: 150, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            let first = UInt16.random(in: 65_000...65_535, using: &random)
            let budget = Int.random(in: 100...1_200, using: &random)
            let frames = try CodecTestStreams.frames(
                codec, count: Int.random(in: 1...60, using: &random), firstSequenceNumber: first,
                firstTimestamp: UInt32.random(in: (UInt32.max - 50_000)...UInt32.max, using: &random),
                maximumPayloadSize: budget,
                maximumFrameSize: [40, 400, 3_000].randomElement(using: &random)!, using: &random)
            let dropPercent = [0, 0, 2, 10].randomElement(using: &random)!
            let displacement = Int.random(in: 0...40, using: &random)
            let givesUpEarly = Int.random(in: 0..<4, using: &random) == 0
            let packets = frames.flatMap(\.packets)
            #expect(packets.allSatisfy { !$0.payload.isEmpty && $0.payload.count <= budget }, "a payload outside the budget")

            // The channel: each packet dropped, sent once or twice, and moved up to
            // `displacement` places. The last frame always arrives: nothing shows a receiver
            // packets lost after the last it got.
            let lastFramesStart = packets.count - frames[frames.count - 1].packets.count
            var dropped = Set<UInt16>()
            var sent: [(position: Int, packet: RTPPacket)] = []
            for (index, packet) in packets.enumerated() {
                if index < lastFramesStart, Int.random(in: 0..<100, using: &random) < dropPercent {
                    dropped.insert(packet.sequenceNumber)
                    continue
                }
                for _ in 0..<(Int.random(in: 0..<10, using: &random) == 0 ? 2 : 1) {
                    sent.append((index + Int.random(in: 0...displacement, using: &random), packet))
                }
            }
            sent.sort { $0.position < $1.position }

            var assembler = FrameAssembler(codec: codec, firstSequenceNumber: first)
            var events: [FrameAssemblyEvent] = []
            for (_, packet) in sent {
                events += assembler.receive(packet)
                #expect(assembler.bufferedPacketCount <= assembler.maximumSpan)
                if givesUpEarly && Int.random(in: 0..<30, using: &random) == 0 { events += assembler.skipMissing() }
            }
            events += assembler.finish()
            #expect(assembler.bufferedPacketCount == 0)
            Self.check(events, frames: frames, dropped: dropped, strict: !givesUpEarly, codec: codec)
        }
    }

    static func check(_ events: [FrameAssemblyEvent], frames: [SentFrame], dropped: Set<UInt16>, strict: Bool, codec: FrameAssembler.Codec) {
        let byFirstNumber = Dictionary(uniqueKeysWithValues: frames.enumerated().map { ($1.packets[0].sequenceNumber, $0) })
        var delivered = Set<Int>()
        var losses: [FrameLoss] = []
        for event in events {
            switch event {
            case .frame(let frame):
                guard let index = byFirstNumber[frame.firstSequenceNumber] else {
                    Issue.record("a frame delivered from a packet that starts none")
                    continue
                }
                let original = frames[index]
                #expect(delivered.insert(index).inserted, "frame \(index) delivered twice")
                #expect(frame.bytes == original.decoderBytes, "frame \(index) delivered with other bytes")
                #expect(frame.timestamp == original.timestamp && frame.isKeyframe == original.isKeyframe)
                #expect(frame.packetCount == original.packets.count)
            case .lost(let loss):
                losses.append(loss)
            }
        }
        for (index, frame) in frames.enumerated() {
            let numbers = frame.packets.map(\.sequenceNumber)
            let damaged = numbers.contains { dropped.contains($0) }
            let reportedLost = numbers.allSatisfy { number in losses.contains { $0.contains(number) } }
            let touchedByLoss = numbers.contains { number in losses.contains { $0.contains(number) } }
            if damaged { #expect(!delivered.contains(index), "frame \(index) delivered though a packet of it was dropped") }
            #expect(delivered.contains(index) != reportedLost, "frame \(index) neither delivered nor reported lost, or both")
            #expect(!(delivered.contains(index) && touchedByLoss), "frame \(index) delivered and inside a loss")
            guard strict, !damaged, !delivered.contains(index) else { continue }
            let previousLostItsEnd = index > 0 && dropped.contains(frames[index - 1].packets.last!.sequenceNumber)
            #expect(codec == .h264 && previousLostItsEnd, "frame \(index) arrived whole but was reported lost")
        }
        if dropped.isEmpty && strict { #expect(losses.isEmpty, "a loss reported though nothing was dropped") }
    }

    /// Random datagrams, RTP packets with random payloads, and real packets with a byte
    /// changed, at random numbers, timestamps and markers: the assembler never traps, stays
    /// within its span and resolves everything at the end.
    @Test(.shrinking(false), arguments: [FrameAssembler.Codec.opus, .vp8, .h264])
    func garbageNeverTrapsAndStaysBounded(codec: FrameAssembler.Codec) async {
        await propertyCheck(count: 3_000, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            let span = Int.random(in: 16...64, using: &random)
            var assembler = FrameAssembler(codec: codec, firstSequenceNumber: Bool.random(using: &random) ? 0 : nil, maximumSpan: span)
            let base = UInt16.random(in: 0...UInt16.max, using: &random)
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    _ = assembler.receive(datagram: random.bytes(0...60))
                case 1:
                    let packet = RTPPacket(
                        marker: Bool.random(using: &random), payloadType: 96,
                        sequenceNumber: base &+ UInt16.random(in: 0...80, using: &random),
                        timestamp: UInt32.random(in: 0...3, using: &random), ssrc: 1, payload: random.bytes(0...40))
                    _ = assembler.receive(packet)
                default:
                    var payload = (try? CodecTestStreams.frames(
                        codec, count: 1, firstSequenceNumber: 0, firstTimestamp: 0, maximumPayloadSize: 30,
                        maximumFrameSize: 60, using: &random))?.first?.packets.randomElement(using: &random)?.payload ?? []
                    if !payload.isEmpty { payload[Int.random(in: 0..<payload.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
                    let packet = RTPPacket(
                        marker: Bool.random(using: &random), payloadType: 96,
                        sequenceNumber: base &+ UInt16.random(in: 0...80, using: &random),
                        timestamp: UInt32.random(in: 0...3, using: &random), ssrc: 1, payload: payload)
                    _ = assembler.receive(packet)
                }
                #expect(assembler.bufferedPacketCount <= span)
            }
            _ = assembler.skipMissing()
            _ = assembler.finish()
            #expect(assembler.bufferedPacketCount == 0)
        }
    }

    /// The codecs' payload readers on random payload lists never trap.
    @Test(.shrinking(false))
    func payloadReadersTakeAnyBytes() async {
        await propertyCheck(count: 3_000, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            let payloads = (0..<Int.random(in: 0...4, using: &random)).map { _ in random.bytes(0...30)[...] }
            _ = VP8Payload.frame(from: payloads)
            _ = H264Payload.frame(from: payloads)
            _ = OpusPayload.frame(from: payloads)
            _ = payloads.first.flatMap { VP8PayloadDescriptor.parse($0) }
            _ = H264AnnexB.nalUnits(in: Array(payloads.joined()))
        }
    }
}
